// Writes each workspace's tsconfig.json (sources -> dist) and test/tsconfig.json (tests, no emit)
// with project references derived from package.json dependencies, and the root solution file.
// Run after adding a workspace or a dependency between workspaces: node tools/ci/gen-tsconfig.mjs
import { existsSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { workspaces } from './workspaces.mjs';

const root = join(dirname(new URL(import.meta.url).pathname), '../..');
const all = workspaces(root);
const byName = new Map(all.map(({ dir, pkg }) => [pkg.name, dir]));
const write = (file, obj) => writeFileSync(file, `${JSON.stringify(obj, null, 2)}\n`);
const solution = [];
for (const { dir: d, pkg } of all) {
  // Sources reference runtime dependencies; tests also their devDependencies (e.g. the stack).
  const toRefs = (deps) =>
    Object.keys(deps ?? {})
      .filter((n) => byName.has(n))
      .map((n) => ({ path: relative(join(root, d), join(root, byName.get(n))) }));
  const refs = toRefs(pkg.dependencies);
  const testRefs = toRefs({ ...pkg.dependencies, ...pkg.devDependencies });
  if (d !== 'proto') {
    write(join(root, d, 'tsconfig.json'), {
      extends: relative(join(root, d), join(root, 'tsconfig.base.json')),
      compilerOptions: { rootDir: 'src', outDir: 'dist' },
      include: ['src/**/*.ts'],
      references: refs,
    });
  }
  solution.push({ path: d });
  if (existsSync(join(root, d, 'test'))) {
    write(join(root, d, 'test', 'tsconfig.json'), {
      extends: relative(join(root, d, 'test'), join(root, 'tsconfig.base.json')),
      compilerOptions: { noEmit: true, rootDir: '..', types: ['node', 'jest'] },
      include: ['**/*.ts'],
      references: [{ path: '..' }, ...testRefs.map((r) => ({ path: join('..', r.path) }))],
    });
    solution.push({ path: `${d}/test` });
  }
}
// The repository-wide checks' tests (tools/ci/test) belong to no workspace: type-checked on their own.
write(join(root, 'tools/ci/test/tsconfig.json'), {
  extends: '../../../tsconfig.base.json',
  compilerOptions: { noEmit: true, rootDir: '.', types: ['node', 'jest'] },
  include: ['**/*.ts'],
});
solution.push({ path: 'tools/ci/test' });
write(join(root, 'tsconfig.json'), { files: [], references: solution });
