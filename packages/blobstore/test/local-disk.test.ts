// Local-disk specifics the contract does not cover: paths, prefixes across chunked names, signing.
import { readdir } from 'node:fs/promises';
import { tempDir } from '@media/testkit';
import { BlobHttpError, createLocalDiskBlobStore, type LocalDiskBlobStore } from '../src/index.js';
import { streamOf } from './helpers.js';

let dir: { path: string; remove: () => Promise<void> };
let store: LocalDiskBlobStore;
let clock = Date.parse('2030-01-01T00:00:00.000Z');

beforeAll(async () => {
  dir = await tempDir('blobstore-disk-');
  store = createLocalDiskBlobStore({
    root: dir.path,
    publicBaseUrl: 'https://media.example/storage/',
    signingSecret: 's3cret',
    now: () => clock,
  });
});
afterAll(async () => {
  await dir.remove();
});

it('keeps blobs inside the root under readable names, temp files out of every prefix', async () => {
  expect(store.localPath('acc_x/dir_y/video.mp4')).toBe(`${dir.path}/acc_x/dir_y/video.mp4`);
  expect(store.localPath('acc/..%2F..')).toBe(`${dir.path}/acc/%2E.%252^f..`);
  await store.put('acc_x/dir_y/video.mp4', streamOf(Buffer.from('x')));
  expect(await readdir(dir.path)).toEqual(expect.arrayContaining(['acc_x', '.tmp']));
  expect(await store.deletePrefix('.tmp/')).toBe(0);
  expect(await store.deletePrefix('.')).toBe(0);
  expect(await store.head('acc_x/dir_y/video.mp4')).not.toBeNull();
});

it('deletes by a partial prefix inside a chunked long name', async () => {
  const stem = `acc/long/${'文'.repeat(100)}`;
  for (const k of [`${stem}a`, `${stem}b`, `${stem}c/child`]) await store.put(k, streamOf(Buffer.from(k)));
  expect(await store.deletePrefix(`${stem}a`)).toBe(1);
  expect(await store.head(`${stem}a`)).toBeNull();
  expect(await store.head(`${stem}b`)).not.toBeNull();
  expect(await store.deletePrefix('acc/long/')).toBe(2); // b and c/child
  expect(await readdir(`${dir.path}/acc`)).toEqual([]); // emptied directories are pruned
});

describe('signed URLs', () => {
  it('carry the public base path and verify with or without it (behind a path-stripping proxy)', async () => {
    const { url } = await store.signDownload('acc/d/ü.txt', { expiresInSeconds: 300, fileName: 'ü.txt' });
    expect(url.startsWith('https://media.example/storage/blob/acc/d/%C3%BC.txt?method=GET&expires=')).toBe(true);
    const { pathname, search } = new URL(url);
    const claims = store.verifySignedTarget(pathname + search);
    expect(claims).toEqual({ method: 'GET', key: 'acc/d/ü.txt', expires: Date.parse('2030-01-01T00:05:00Z') / 1000, fileName: 'ü.txt' });
    expect(store.verifySignedTarget(pathname.replace('/storage', '') + search)).toEqual(claims);
    expect(() => store.verifySignedTarget(`/other${search}`)).toThrow(BlobHttpError);
  });

  it('expire by the injected clock, after and not before expiresInSeconds', async () => {
    const { url } = await store.signUpload('acc/d/up.bin', { expiresInSeconds: 300, maxBytes: 10 });
    const target = url.slice('https://media.example'.length);
    const start = clock;
    try {
      clock = start + 300_000;
      expect(store.verifySignedTarget(target)).toMatchObject({ method: 'PUT', maxBytes: 10 });
      clock = start + 301_000;
      expect(() => store.verifySignedTarget(target)).toThrow(new BlobHttpError(403, 'This URL has expired.'));
    } finally {
      clock = start;
    }
  });

  it('do not verify under another secret', async () => {
    const other = createLocalDiskBlobStore({
      root: dir.path,
      publicBaseUrl: 'https://media.example/storage',
      signingSecret: 'other',
      now: () => clock,
    });
    const { url } = await other.signDownload('acc/d/x', { expiresInSeconds: 60 });
    expect(() => store.verifySignedTarget(url.slice('https://media.example'.length))).toThrow(
      new BlobHttpError(403, 'The signature of this URL is not valid.'),
    );
  });
});

it('sweepTemp removes the part-written files a crash left (idle past the bound), not those in progress', async () => {
  const { mkdir, utimes, writeFile } = await import('node:fs/promises');
  const { join } = await import('node:path');
  const temp = join(dir.path, '.tmp');
  await mkdir(temp, { recursive: true });
  await writeFile(join(temp, 'left-by-a-crash'), 'part');
  await writeFile(join(temp, 'being-written'), 'part');
  // The store's clock is `clock`: one file last written 20 minutes before it, one just now.
  await utimes(join(temp, 'left-by-a-crash'), new Date(clock - 20 * 60_000), new Date(clock - 20 * 60_000));
  await utimes(join(temp, 'being-written'), new Date(clock), new Date(clock));
  expect(await store.sweepTemp(15 * 60_000)).toBe(1);
  expect((await readdir(temp)).sort()).toEqual(['being-written']);
});
