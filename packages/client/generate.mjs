// Writes src/api.ts (the paths and schemas as TypeScript types) from docs/openapi.json with
// openapi-typescript. `npm run openapi` runs it; test/generated.test.ts fails when it is stale.
import { readFile, writeFile } from 'node:fs/promises';
import openapiTS, { astToString } from 'openapi-typescript';

export async function generatedTypes() {
  const doc = JSON.parse(await readFile(new URL('../../docs/openapi.json', import.meta.url), 'utf8'));
  const header = '// Generated from docs/openapi.json by packages/client/generate.mjs (npm run openapi). Do not edit.\n';
  return header + astToString(await openapiTS(doc, { alphabetize: false }));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await writeFile(new URL('./src/api.ts', import.meta.url), await generatedTypes());
  process.stderr.write('wrote packages/client/src/api.ts\n');
}
