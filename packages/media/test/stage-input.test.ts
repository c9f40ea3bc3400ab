// Staging an uploaded input into a job's work directory: a hard link to the stored file when it
// is on the same filesystem (no bytes written), a copy across filesystems, and the bytes streamed
// from Storage when the file is not on this host at all. The stored file is never changed.
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EMPTY_CIDR_LIST, stageInput, type ResolvedInput, type StagingDeps } from '../src/index.js';

let dir: string;
const bytes = Buffer.from('not really a movie, but bytes all the same');
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'stage-input-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

let streamed = 0;
const deps = {
  allowlist: EMPTY_CIDR_LIST,
  timeoutMs: 10_000,
  storage: {
    readFile: async function* () {
      streamed++;
      yield { chunk: bytes };
    },
  },
} as unknown as StagingDeps;

const resolved = (localPath?: string): ResolvedInput => ({ input: { kind: 'uploaded', dirId: 'dir_a', fileName: 'in.mp4' }, name: 'in.mp4', size: bytes.length, localPath });

test('same filesystem: the staged input is the stored file itself, linked', async () => {
  const stored = join(dir, 'blob-1');
  await writeFile(stored, bytes);
  const wd = join(dir, 'w1');
  expect(await stageInput(deps, 'acc', wd, 0, resolved(stored))).toBe(bytes.length);
  const [a, b] = await Promise.all([stat(stored), stat(join(wd, 'in', '0'))]);
  expect(b.ino).toBe(a.ino);
  expect(await readFile(join(wd, 'in', '0'))).toEqual(bytes);
  // Cleaning the work directory leaves the stored file whole.
  await rm(wd, { recursive: true });
  expect(await readFile(stored)).toEqual(bytes);
});

(existsSync('/dev/shm') ? test : test.skip)('another filesystem: a copy', async () => {
  const shm = await mkdtemp('/dev/shm/stage-input-');
  try {
    const stored = join(shm, 'blob-2');
    await writeFile(stored, bytes);
    const wd = join(dir, 'w2');
    expect(await stageInput(deps, 'acc', wd, 0, resolved(stored))).toBe(bytes.length);
    expect((await stat(join(wd, 'in', '0'))).ino).not.toBe((await stat(stored)).ino);
    expect(await readFile(join(wd, 'in', '0'))).toEqual(bytes);
  } finally {
    await rm(shm, { recursive: true, force: true });
  }
});

test('not on this host: streamed from Storage', async () => {
  const wd = join(dir, 'w3');
  const before = streamed;
  expect(await stageInput(deps, 'acc', wd, 0, resolved(join(dir, 'no-such-blob')))).toBe(bytes.length);
  expect(streamed).toBe(before + 1);
  expect(await readFile(join(wd, 'in', '0'))).toEqual(bytes);
});
