// The npm workspaces of the repository, read from the root package.json (`dir/*` patterns expanded
// to the folders holding a package.json): one list for the tools that derive per-workspace config.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const readJson = (file) => JSON.parse(readFileSync(file, 'utf8'));

/** Each workspace as { dir (relative to root, `/`-separated), pkg (its package.json) }. */
export function workspaces(root) {
  const dirs = readJson(join(root, 'package.json')).workspaces.flatMap((pattern) => {
    if (!pattern.endsWith('/*')) return [pattern];
    const base = pattern.slice(0, -2);
    return readdirSync(join(root, base))
      .filter((d) => existsSync(join(root, base, d, 'package.json')))
      .map((d) => `${base}/${d}`);
  });
  return dirs.map((dir) => ({ dir, pkg: readJson(join(root, dir, 'package.json')) }));
}
