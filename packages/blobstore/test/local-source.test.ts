// Local sources (files of this host taken into the local-disk store without streaming them over
// RPC): only a regular file inside the trusted directory, taken in by a hard link on the same
// filesystem or a copy across filesystems, with put's size limit; a swapped name is caught.
import { mkdir, mkdtemp, readdir, rename, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { tempDir } from '@media/testkit';
import {
  BlobTooLargeError,
  createLocalDiskBlobStore,
  LocalSourceRefusedError,
  openLocalSource,
  type LocalDiskBlobStore,
} from '../src/index.js';
import { randomData, readAll, sha256 } from './helpers.js';

let dir: { path: string; remove: () => Promise<void> };
let store: LocalDiskBlobStore;
let trusted: string;

beforeAll(async () => {
  dir = await tempDir('blobstore-source-');
  store = createLocalDiskBlobStore({ root: join(dir.path, 'blobs'), publicBaseUrl: 'http://localhost', signingSecret: 's' });
  trusted = join(dir.path, 'work');
  await mkdir(join(trusted, 'job', 'out'), { recursive: true });
});
afterAll(async () => {
  await dir.remove();
});

async function take(key: string, path: string, maxBytes?: number) {
  const source = await openLocalSource(trusted, path);
  try {
    return await store.putFile(key, source, { maxBytes });
  } finally {
    await source.handle.close();
  }
}

const tempFiles = async () => readdir(join(dir.path, 'blobs', '.tmp')).catch(() => []);

it('links a file of the same filesystem into place; the source stays', async () => {
  const data = randomData(300_000);
  const path = join(trusted, 'job', 'out', 'a.bin');
  await writeFile(path, data);
  expect(await take('acc/dir/a', path)).toEqual({ size: data.length });
  expect((await stat(store.localPath('acc/dir/a'))).ino).toBe((await stat(path)).ino);
  expect(sha256(await readAll(await store.get('acc/dir/a')))).toBe(sha256(data));
  expect(await tempFiles()).toEqual([]);
});

it('copies a file of another filesystem', async () => {
  const shm = '/dev/shm';
  const other = await mkdtemp(join(shm, 'blobstore-source-')).catch(() => undefined);
  if (!other || (await stat(other)).dev === (await stat(dir.path)).dev) {
    if (other) await rm(other, { recursive: true, force: true });
    return; // no second filesystem here: nothing to show
  }
  try {
    const data = randomData(200_000);
    await writeFile(join(other, 'b.bin'), data);
    const source = await openLocalSource(other, join(other, 'b.bin'));
    try {
      expect(await store.putFile('acc/dir/b', source)).toEqual({ size: data.length });
      await expect(store.putFile('acc/dir/b2', source, { maxBytes: 1000 })).rejects.toBeInstanceOf(BlobTooLargeError);
    } finally {
      await source.handle.close();
    }
    expect((await stat(store.localPath('acc/dir/b'))).ino).not.toBe((await stat(join(other, 'b.bin'))).ino);
    expect(sha256(await readAll(await store.get('acc/dir/b')))).toBe(sha256(data));
    expect(await store.head('acc/dir/b2')).toBeNull();
    expect(await tempFiles()).toEqual([]);
  } finally {
    await rm(other, { recursive: true, force: true });
  }
});

it('keeps the size limit', async () => {
  const path = join(trusted, 'job', 'out', 'c.bin');
  await writeFile(path, randomData(2000));
  await expect(take('acc/dir/c', path, 1999)).rejects.toEqual(new BlobTooLargeError(2000, 1999));
  expect(await store.head('acc/dir/c')).toBeNull();
  expect(await take('acc/dir/c', path, 2000)).toEqual({ size: 2000 });
});

it('refuses a name swapped after the checks: the blob must be the file that was opened', async () => {
  const path = join(trusted, 'job', 'out', 'd.bin');
  await writeFile(path, 'checked');
  const source = await openLocalSource(trusted, path);
  try {
    await rename(path, join(trusted, 'job', 'out', 'd.old'));
    await writeFile(path, 'swapped');
    await expect(store.putFile('acc/dir/d', source)).rejects.toBeInstanceOf(LocalSourceRefusedError);
  } finally {
    await source.handle.close();
  }
  expect(await store.head('acc/dir/d')).toBeNull();
  expect(await tempFiles()).toEqual([]);
});

it('opens only regular files inside the trusted directory, with no link or dot segment below it', async () => {
  const outside = join(dir.path, 'secret.txt');
  await writeFile(outside, 'secret');
  await symlink(outside, join(trusted, 'job', 'out', 'ln'));
  await symlink(dir.path, join(trusted, 'jobln'));
  const refusals: [string, RegExp][] = [
    [outside, /outside the trusted directory/],
    [join(trusted, 'job', 'out', 'ln'), /a symbolic link/],
    [join(trusted, 'jobln', 'secret.txt'), /symbolic link in the path/],
    [`${trusted}/job/../../secret.txt`, /not a normalised path/],
    [`${trusted}/job/out/`, /not a normalised path/],
    ['work/job/out/a.bin', /not an absolute path/],
    [join(trusted, 'job'), /not a regular file/],
    [join(trusted, 'job', 'out', 'nothing'), /no such file/],
    [`${trusted}-sibling/x`, /outside the trusted directory/],
  ];
  for (const [path, reason] of refusals) {
    const err = await openLocalSource(trusted, path).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(LocalSourceRefusedError);
    expect({ path, reason: (err as LocalSourceRefusedError).reason }).toEqual({ path, reason: expect.stringMatching(reason) });
  }
  await expect(openLocalSource(join(tmpdir(), 'no-such-dir-here'), '/no-such-dir-here/x')).rejects.toBeInstanceOf(LocalSourceRefusedError);
});
