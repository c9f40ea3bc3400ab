// The main entry runs in browsers too: nothing it loads may import a Node built-in (those are
// in @media/client/node only).
import { readFile } from 'node:fs/promises';

test('the modules of @media/client (not ./node) import no node: module', async () => {
  const seen = new Set<string>();
  const visit = async (file: string): Promise<void> => {
    if (seen.has(file)) return;
    seen.add(file);
    const text = await readFile(new URL(`../src/${file}`, import.meta.url), 'utf8');
    for (const [, spec] of text.matchAll(/^(?:import|export)[^'"]*from '([^']+)'/gm)) {
      expect({ file, spec, node: spec!.startsWith('node:') }).toEqual({ file, spec, node: false });
      if (spec!.startsWith('./')) await visit(spec!.slice(2).replace(/\.js$/, '.ts'));
    }
  };
  await visit('index.ts');
  expect([...seen].sort()).toEqual(['api.ts', 'client.ts', 'errors.ts', 'index.ts', 'retry.ts']);
  // And ./node does use them (the check sees imports at all).
  expect(await readFile(new URL('../src/node.ts', import.meta.url), 'utf8')).toMatch(/from 'node:fs'/);
});
