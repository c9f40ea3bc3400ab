// docs/openapi.json passes Redocly's linter (redocly.yaml: the recommended ruleset; the places that
// break a rule on purpose are listed in .redocly.lint-ignore.yaml with their reasons).
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { lint, lintFromString, loadConfig, type NormalizedProblem } from '@redocly/openapi-core';

const root = (path: string) => fileURLToPath(new URL(`../../${path}`, import.meta.url));
const documentPath = root('docs/openapi.json');

/** Each problem as one line a reader can act on: severity, rule, where, what. */
const shown = (problems: NormalizedProblem[]) =>
  problems.filter((p) => !p.ignored).map((p) => `${p.severity} ${p.ruleId} ${p.location[0]?.pointer ?? ''}: ${p.message}`);

const config = () => loadConfig({ configPath: root('redocly.yaml') });

test('docs/openapi.json has no problem for Redocly (errors and warnings)', async () => {
  expect(shown(await lint({ ref: documentPath, config: await config() }))).toEqual([]);
});

test('the lint fails a document that keeps a validator keyword (errorMessage)', async () => {
  const doc = JSON.parse(await readFile(documentPath, 'utf8'));
  const limit = doc.paths['/jobs'].get.parameters.find((p: { name: string }) => p.name === 'limit');
  limit.schema.errorMessage = 'limit must be a whole number from 1 to 100';
  const problems = await lintFromString({ source: JSON.stringify(doc), absoluteRef: documentPath, config: await config() });
  expect(shown(problems)).toEqual([expect.stringMatching(/^error struct .*\/errorMessage: Property `errorMessage` is not expected here/)]);
});
