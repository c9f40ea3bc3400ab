// Writes each workspace's tsconfig.json (sources -> dist) and test/tsconfig.json (tests, no emit)
// with project references derived from package.json dependencies, and the root solution file.
// Run after adding a workspace or a dependency between workspaces: node tools/ci/gen-tsconfig.mjs
import { readFileSync, writeFileSync, existsSync } from 'node:fs';
import { join, relative, dirname } from 'node:path';

const root = join(dirname(new URL(import.meta.url).pathname), '../..');
const rootPkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const dirs = [];
for (const pattern of rootPkg.workspaces) {
  if (pattern.endsWith('/*')) {
    const base = pattern.slice(0, -2);
    for (const d of (await import('node:fs')).readdirSync(join(root, base))) {
      if (existsSync(join(root, base, d, 'package.json'))) dirs.push(join(base, d));
    }
  } else dirs.push(pattern);
}
const byName = new Map(dirs.map((d) => [JSON.parse(readFileSync(join(root, d, 'package.json'), 'utf8')).name, d]));
const write = (file, obj) => writeFileSync(file, `${JSON.stringify(obj, null, 2)}\n`);
const solution = [];
for (const d of dirs) {
  const pkg = JSON.parse(readFileSync(join(root, d, 'package.json'), 'utf8'));
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
write(join(root, 'tsconfig.json'), { files: [], references: solution });
