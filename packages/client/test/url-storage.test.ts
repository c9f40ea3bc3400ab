// fileUrlStorage, the record of resumable uploads: a damaged file is left as it is by reads (it
// may be another process's write in flight) and replaced by the next write only; records older
// than a directory's longest life (7 days) go when the file is opened; others stay.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileUrlStorage } from '@media/client/node';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'client-url-storage-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const upload = (daysAgo: number, url: string) => ({
  size: 10,
  metadata: { filename: 'a.bin' },
  creationTime: new Date(Date.now() - daysAgo * 24 * 3600_000).toString(),
  uploadUrl: url,
});

test('records older than 7 days go when the file is opened; the others stay', async () => {
  const path = join(dir, 'old.json');
  await writeFile(path, JSON.stringify({ 'fp::1': upload(8, 'http://x/old'), 'fp::2': upload(6, 'http://x/recent') }));
  const storage = await fileUrlStorage(path);
  expect((await storage.findAllUploads()).map((u) => u.uploadUrl)).toEqual(['http://x/recent']);
  expect(Object.keys(JSON.parse(await readFile(path, 'utf8')) as object)).toEqual(['fp::2']);
  expect((await storage.findUploadsByFingerprint('fp')).map((u) => u.urlStorageKey)).toEqual(['fp::2']);
});

test('a damaged file is not written over by reading it; the next record replaces it', async () => {
  const path = join(dir, 'damaged.json');
  await writeFile(path, '{"fp::1": {"uploadUrl": "http://x/');
  const storage = await fileUrlStorage(path);
  expect(await storage.findAllUploads()).toEqual([]);
  expect(await storage.findUploadsByFingerprint('fp')).toEqual([]);
  await storage.removeUpload('fp::1');
  expect(await readFile(path, 'utf8')).toBe('{"fp::1": {"uploadUrl": "http://x/');

  const key = await storage.addUpload('fp', upload(0, 'http://x/new') as never);
  expect(key).toMatch(/^fp::/);
  expect((await storage.findAllUploads()).map((u) => u.uploadUrl)).toEqual(['http://x/new']);
  await storage.removeUpload(key);
  expect(JSON.parse(await readFile(path, 'utf8'))).toEqual({});
});
