// Staging an uploaded input into a job's work directory: a hard link to the stored file when it
// is on the same filesystem (no bytes written), a copy across filesystems, and the bytes streamed
// from Storage when the file is not on this host at all. The stored file is never changed.
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  EMPTY_CIDR_LIST,
  parseCidrList,
  resolveInputs,
  stageInput,
  urlFileName,
  type ResolvedInput,
  type StagingDeps,
} from '../src/index.js';

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

const resolved = (localPath?: string): ResolvedInput => ({
  input: { kind: 'uploaded', dirId: 'dir_a', fileName: 'in.mp4' },
  name: 'in.mp4',
  size: bytes.length,
  localPath,
});

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

describe('names of URL inputs (no connection is made)', () => {
  test.each([
    ['https://media.example.com/videos/clip.mp4', 'clip.mp4'],
    ['https://media.example.com/videos/my%20clip%C3%A9.mp4?sig=x', 'my clipé.mp4'],
    ['https://media.example.com/videos/', 'videos'],
    ['https://media.example.com/', 'media.example.com'],
    // A broken escape is no reason to fail the task: the name keeps the segment as written.
    ['https://127.0.0.1:18692/f/a%E0%A4%A.mp4', 'a%E0%A4%A.mp4'],
    ['https://media.example.com/%ZZ.mp4', '%ZZ.mp4'],
    // Decoded control characters are shown, not written raw into an error sentence.
    ['https://media.example.com/a%0Ab%00c%7F.mp4', 'a\\u000ab\\u0000c\\u007f.mp4'],
    ['https://media.example.com/a%0A%E0%A4%A.mp4', 'a%0A%E0%A4%A.mp4'],
  ])('%s is %j', (url, name) => expect(urlFileName(new URL(url))).toBe(name));

  test('at most 255 characters', () => {
    expect(urlFileName(new URL(`https://media.example.com/${'é'.repeat(300)}`))).toBe('é'.repeat(255));
  });

  test('resolveInputs names a URL with a broken escape instead of failing', async () => {
    // 127.0.0.1 is allow-listed so the address check passes; resolveInputs only classifies the address.
    const urlDeps = { ...deps, allowlist: parseCidrList('127.0.0.1/32') };
    const inputs = [
      { kind: 'url' as const, url: 'https://127.0.0.1:18692/f/a%E0%A4%A.mp4' },
      { kind: 'url' as const, url: 'https://127.0.0.1:18692/f/line%0Abreak.mp4' },
    ];
    const got = await resolveInputs(urlDeps, 'acc', inputs);
    expect(got.map((r) => r.name)).toEqual(['a%E0%A4%A.mp4', 'line\\u000abreak.mp4']);
  });
});
