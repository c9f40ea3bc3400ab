// fileUrlStorage, the record of resumable uploads: a damaged file is left as it is by reads (it
// may be another process's write in flight) and replaced by the next write only; records older
// than a directory's longest life (7 days) go when the file is opened; others stay; concurrent
// changes (in one process or several) are all kept.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
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

test('concurrent records are all kept: within a process (two storages of one file) and across processes', async () => {
  const path = join(dir, 'concurrent.json');
  const [one, two] = [await fileUrlStorage(path), await fileUrlStorage(path)];
  const keys = await Promise.all(
    Array.from({ length: 20 }, (_, i) => (i % 2 ? one : two).addUpload(`fp${i}`, upload(0, `http://x/${i}`) as never)),
  );
  expect(keys.every((k) => k !== '')).toBe(true);
  expect((await one.findAllUploads()).map((u) => u.uploadUrl).sort()).toEqual(Array.from({ length: 20 }, (_, i) => `http://x/${i}`).sort());
  // A removal racing a record keeps the record and removes only its own.
  await Promise.all([one.removeUpload(keys[0]!), two.addUpload('late', upload(0, 'http://x/late') as never), one.removeUpload(keys[1]!)]);
  const left = (await two.findAllUploads()).map((u) => u.uploadUrl);
  expect(left).toContain('http://x/late');
  expect(left).not.toContain('http://x/0');
  expect(left).not.toContain('http://x/1');

  // Two processes, each recording 15 uploads at once.
  const across = join(dir, 'across.json');
  const script = `
    import { fileUrlStorage } from '@media/client/node';
    const storage = await fileUrlStorage(process.argv[1]);
    const keys = await Promise.all(Array.from({ length: 15 }, (_, i) =>
      storage.addUpload('fp', { size: 1, metadata: {}, creationTime: new Date().toString(), uploadUrl: 'http://x/' + process.argv[2] + '-' + i })));
    if (keys.includes('')) process.exit(1);`;
  const child = (tag: string) =>
    new Promise<number | null>((resolve, reject) => {
      const p = spawn(process.execPath, ['--input-type=module', '-e', script, across, tag], {
        cwd: fileURLToPath(new URL('..', import.meta.url)),
        stdio: 'inherit',
      });
      p.on('error', reject);
      p.on('exit', resolve);
    });
  expect(await Promise.all([child('a'), child('b')])).toEqual([0, 0]);
  const stored = Object.values(JSON.parse(await readFile(across, 'utf8')) as Record<string, { uploadUrl: string }>).map((u) => u.uploadUrl);
  expect(stored).toHaveLength(30);
  expect(existsSync(`${across}.lock`)).toBe(false);
});
