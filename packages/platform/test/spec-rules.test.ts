// One home per rule: the spec's file limit and directory lifetime are written out in
// spec-rules.ts only; every other source reads them from there.
import { readdir, readFile } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import { fileNameProblem, MAX_FILE_BYTES, MAX_TTL_SEC } from '../src/spec-rules.js';

const root = resolve(import.meta.dirname, '../../..');

async function sources(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name === 'dist' || entry.name.startsWith('.')) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await sources(path)));
    else if (entry.name.endsWith('.ts') && path.includes('/src/')) out.push(path);
  }
  return out;
}

test('the 5 GB limit and the 7-day lifetime are written out in spec-rules.ts only', async () => {
  const written = /\b5_?000_?000_?000\b|\b5e9\b|\b604_?800\b/;
  const files = (await Promise.all(['gateway', 'services', 'packages', 'tools'].map((d) => sources(join(root, d))))).flat();
  expect(files.length).toBeGreaterThan(100);
  const homes: string[] = [];
  for (const file of files) if (written.test(await readFile(file, 'utf8'))) homes.push(relative(root, file));
  expect(homes).toEqual(['packages/platform/src/spec-rules.ts']);
  expect({ MAX_FILE_BYTES, MAX_TTL_SEC }).toEqual({ MAX_FILE_BYTES: 5e9, MAX_TTL_SEC: 604800 });
});

test('file names: 255 characters of any script, no slash, backslash or control character', () => {
  expect(fileNameProblem('動'.repeat(255))).toBeNull();
  expect(fileNameProblem('動'.repeat(256))).toBe('must be 1 to 255 characters');
  expect(fileNameProblem('a\u0085b')).toBe('must not contain control characters');
  expect(fileNameProblem('a/b')).toBe('must not contain a slash or backslash');
  expect(fileNameProblem('..')).toBe('must not be "." or ".."');
});
