// The upload cache on its own: entries scoped to one service and key, gone with their directory,
// and the key never written down.
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { cacheDir, digestOf, hashingTap, UploadCache } from '../src/upload-cache.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'media-cache-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

const inAnHour = () => new Date(Date.now() + 3600_000).toISOString();
const file = (dirId: string, name: string, expires_at = inAnHour()) => ({
  dir_id: dirId,
  file_name: name,
  file_path: `${dirId}/${name}`,
  expires_at,
});

test('the digest of a file, read as a stream or hashed on its way to an upload', async () => {
  const bytes = Buffer.alloc(300_000, 7);
  await writeFile(join(dir, 'a.bin'), bytes);
  const expected = { sha256: createHash('sha256').update(bytes).digest('hex'), size: bytes.length };
  expect(await digestOf(join(dir, 'a.bin'))).toEqual(expected);
  const { tap, digest } = hashingTap();
  await pipeline(Readable.from([bytes.subarray(0, 1000), bytes.subarray(1000)]), tap, async (s: AsyncIterable<Buffer>) => {
    for await (const _ of s);
  });
  expect(digest()).toEqual(expected);
});

test('an entry is found for the same service, key, bytes and name, until its directory expires', async () => {
  const digest = { sha256: 'a'.repeat(64), size: 10 };
  const cache = new UploadCache(dir, 'http://127.0.0.1:8080/', 'mk_secret');
  await cache.remember([{ digest, file: file('dir_1', 'in.mp4') }]);
  expect(await cache.find(digest, 'in.mp4')).toMatchObject({ file_path: 'dir_1/in.mp4', size: 10 });
  expect(await cache.mayHave('in.mp4', 10)).toBe(true);
  expect(await cache.mayHave('in.mp4', 11)).toBe(false);
  expect(await cache.find(digest, 'other.mp4')).toBeUndefined();
  expect(await new UploadCache(dir, 'http://127.0.0.1:8080', 'mk_other').find(digest, 'in.mp4')).toBeUndefined();
  expect(await new UploadCache(dir, 'http://127.0.0.1:8081', 'mk_secret').find(digest, 'in.mp4')).toBeUndefined();
  expect(await readFile(join(dir, 'uploads.json'), 'utf8')).not.toContain('mk_secret');

  // Another upload to the same file_path replaces it; an expired one is not found, and dropped.
  const other = { sha256: 'b'.repeat(64), size: 10 };
  await cache.remember([{ digest: other, file: file('dir_1', 'in.mp4') }]);
  expect(await cache.find(digest, 'in.mp4')).toBeUndefined();
  // A directory about to expire is not reused either (a queued job must still find the file).
  await cache.remember([{ digest, file: file('dir_4', 'in.mp4', new Date(Date.now() + 60_000).toISOString()) }]);
  expect(await cache.find(digest, 'in.mp4')).toBeUndefined();
  await cache.remember([{ digest, file: file('dir_2', 'in.mp4', new Date(Date.now() - 1000).toISOString()) }]);
  expect(await cache.find(digest, 'in.mp4')).toBeUndefined();
  expect(await readFile(join(dir, 'uploads.json'), 'utf8')).not.toContain('dir_2');
  await cache.touch([other], true);
  expect(await cache.find(other, 'in.mp4')).toBeUndefined();
});

test('a damaged cache file is started over; the folder follows XDG_CACHE_HOME, else ~/.cache', async () => {
  await writeFile(join(dir, 'uploads.json'), '{not json');
  const cache = new UploadCache(dir, 'http://x', 'k');
  expect(await cache.mayHave('a', 1)).toBe(false);
  await cache.remember([{ digest: { sha256: 'c'.repeat(64), size: 1 }, file: file('dir_3', 'a') }]);
  expect(await cache.mayHave('a', 1)).toBe(true);
  expect(cacheDir({ XDG_CACHE_HOME: '/x/cache', HOME: '/home/u' })).toBe('/x/cache/media-cli');
  expect(cacheDir({ HOME: '/home/u' })).toBe('/home/u/.cache/media-cli');
});
