// Checks the import rules (tools/ci/import-rules.mjs) on the sources of every workspace and prints
// each violation; exits 1 if there is one. `npm run -s lint:deps`; run by tools/ci/test too.
// Usage: node tools/ci/check-imports.mjs [root]   (root: the repository, by default this one)
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { cruise } from 'dependency-cruiser';
import { forbidden, options } from './import-rules.mjs';
import { workspaces } from './workspaces.mjs';

const root = resolve(process.argv[2] ?? join(import.meta.dirname, '../..'));
const compilerOptions = (dir) => JSON.parse(readFileSync(join(root, dir, 'tsconfig.json'), 'utf8')).compilerOptions;

// `@media/x` (and its subpath exports) resolve to the workspace's sources rather than its build, so
// the graph does not depend on `tsc -b` having run and a cycle across workspaces shows as one:
// each export's target under outDir is read as the same path under rootDir, as .ts.
const alias = {};
const sourceDirs = [];
for (const { dir, pkg } of workspaces(root)) {
  const { rootDir, outDir } = compilerOptions(dir);
  sourceDirs.push(`${dir}/${rootDir}`);
  const toSource = (target) => join(root, dir, target.replace(`./${outDir}/`, `./${rootDir}/`)).replace(/\.js$/, '.ts');
  for (const [subpath, target] of Object.entries(pkg.exports ?? {})) {
    const file = target.default ?? target;
    const star = subpath.indexOf('*');
    // `./*.js` -> `./dist/*.js` becomes a prefix alias; the resolver maps each .js name to its .ts file.
    if (star >= 0) alias[pkg.name + subpath.slice(1, star - 1)] = toSource(file.slice(0, file.indexOf('*')));
    else alias[`${pkg.name}${subpath.slice(1)}$`] = toSource(file);
  }
}

process.chdir(root); // rule paths are relative to the root
const result = await cruise(sourceDirs, { ...options, validate: true, ruleSet: { forbidden }, outputType: 'err' }, { alias });
process.stdout.write(result.output);
process.exitCode = result.exitCode === 0 ? 0 : 1;
