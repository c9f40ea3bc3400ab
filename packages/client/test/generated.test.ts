// src/api.ts is what openapi-typescript makes of docs/openapi.json (else: npm run openapi).
import { readFile } from 'node:fs/promises';
// @ts-expect-error: a plain .mjs script without types
import { generatedTypes } from '../generate.mjs';

test('the committed client types match the committed OpenAPI document', async () => {
  const committed = await readFile(new URL('../src/api.ts', import.meta.url), 'utf8');
  expect(committed).toBe(await (generatedTypes as () => Promise<string>)());
});
