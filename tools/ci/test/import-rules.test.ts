// The import rules (tools/ci/import-rules.mjs) hold on every workspace's sources: no import cycle,
// no service domain/ importing its adapters/, no packages/* importing tools/*. And the check
// itself finds each kind in a small repository made for it, so it cannot pass by seeing nothing.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';

const CHECK = fileURLToPath(new URL('../check-imports.mjs', import.meta.url));

async function checkImports(root?: string): Promise<{ exitCode: number | undefined; output: string }> {
  const { exitCode, all } = await execa('node', [CHECK, ...(root ? [root] : [])], { reject: false, all: true });
  return { exitCode, output: all };
}

test('the sources keep the import rules', async () => {
  const { exitCode, output } = await checkImports();
  expect({ exitCode, output }).toEqual({ exitCode: 0, output: expect.stringContaining('no dependency violations found') });
}, 120_000);

/** A workspace: package.json with its exports, tsconfig.json with rootDir/outDir, sources. */
const workspace = (dir: string, name: string, sources: Record<string, string>): Record<string, string> => ({
  [`${dir}/package.json`]: JSON.stringify({
    name,
    type: 'module',
    exports: { '.': { types: './dist/index.d.ts', default: './dist/index.js' } },
  }),
  [`${dir}/tsconfig.json`]: JSON.stringify({ compilerOptions: { rootDir: 'src', outDir: 'dist' } }),
  ...Object.fromEntries(Object.entries(sources).map(([file, text]) => [`${dir}/src/${file}`, text])),
});

// NodeNext sources: `.js` specifiers naming `.ts` files, siblings imported by package name.
const BROKEN_REPO: Record<string, string> = {
  'package.json': JSON.stringify({ private: true, workspaces: ['packages/*', 'services/*', 'tools/t'] }),
  ...workspace('packages/a', '@fx/a', {
    'index.ts': "import { tool } from '@fx/tool';\nexport { one } from './one.js';\nexport const t = tool;\n",
    'one.ts': "import { two } from './two.js';\nexport const one = (): number => two() + 1;\n",
    'two.ts': "import type { one } from './one.js';\nexport const two = (): number => 2;\nexport type One = typeof one;\n",
  }),
  ...workspace('packages/b', '@fx/b', { 'index.ts': "import { c } from '@fx/c';\nexport const b = (): string => c;\n" }),
  ...workspace('packages/c', '@fx/c', {
    'index.ts': "import type { b } from '@fx/b';\nexport const c = 'c';\nexport type B = typeof b;\n",
  }),
  ...workspace('services/s', '@fx/svc-s', {
    'index.ts': "export { allowed } from './domain/rule.js';\n",
    'domain/rule.ts': "import type { Repo } from '../adapters/repo.js';\nexport const allowed = (repo: Repo): boolean => repo.ok;\n",
    'adapters/repo.ts': 'export interface Repo {\n  ok: boolean;\n}\n',
  }),
  ...workspace('tools/t', '@fx/tool', { 'index.ts': 'export const tool = 1;\n' }),
};

test('each kind of violation is found: a cycle (within and across workspaces), domain -> adapters, packages -> tools', async () => {
  const root = await mkdtemp(join(tmpdir(), 'import-rules-'));
  try {
    for (const [file, text] of Object.entries(BROKEN_REPO)) {
      await mkdir(dirname(join(root, file)), { recursive: true });
      await writeFile(join(root, file), text);
    }
    const { exitCode, output } = await checkImports(root);
    expect(exitCode).toBe(1);
    const found = output.replace(/\s+/g, ' ');
    expect(found).toContain('no-circular: packages/a/src/one.ts → packages/a/src/two.ts → packages/a/src/one.ts');
    expect(found).toContain('no-circular: packages/b/src/index.ts → packages/c/src/index.ts → packages/b/src/index.ts');
    expect(found).toContain('domain-not-to-adapters: services/s/src/domain/rule.ts → services/s/src/adapters/repo.ts');
    expect(found).toContain('packages-not-to-tools: packages/a/src/index.ts → tools/t/src/index.ts');
    expect(found).not.toContain('not-to-unresolvable');
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}, 120_000);
