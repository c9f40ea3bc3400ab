#!/usr/bin/env node
// Builds the ffmpeg fork server library (forkserver.c) into dist/native, where the runner looks for
// it. Linux only; with no C compiler the service starts every ffmpeg run directly (it says so once
// at the first run), so this prints a note and succeeds. A compiler that fails is an error.
import { spawnSync } from 'node:child_process';
import { mkdirSync, renameSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const source = join(here, 'forkserver.c');
const target = join(here, '..', 'dist', 'native', 'forkserver.so');

const mtime = (file) => {
  try {
    return statSync(file).mtimeMs;
  } catch {
    return undefined;
  }
};

if (process.platform !== 'linux') process.exit(0);
const built = mtime(target);
if (built !== undefined && built >= mtime(source)) process.exit(0);

const cc = process.env.CC || 'cc';
mkdirSync(dirname(target), { recursive: true });
const partial = `${target}.${process.pid}`;
const result = spawnSync(cc, ['-O2', '-Wall', '-Wextra', '-Werror', '-shared', '-fPIC', '-o', partial, source, '-ldl'], {
  stdio: ['ignore', 'inherit', 'inherit'],
});
if (result.error?.code === 'ENOENT') {
  console.log(
    `note: no C compiler (${cc}): the ffmpeg fork server is not built, so every ffmpeg run starts directly (about 60 ms more CPU per run). Install gcc and run npm run build to build it.`,
  );
  process.exit(0);
}
if (result.status !== 0) {
  console.error(`building ${source} with ${cc} failed`);
  process.exit(1);
}
renameSync(partial, target);
