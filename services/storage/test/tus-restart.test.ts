// Resumable uploads on a Storage process of its own (local disk): the parts of an upload cut
// mid-way survive a restart of the process, and the upload resumes on the same URL; an upload
// whose completion failed is completed by the next HEAD; a part the disk's reserve has no room
// for is refused (503) and the upload stays resumable; a client that ends its upload
// (termination) leaves no part behind and may start over.
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, readdir, rm, statfs } from 'node:fs/promises';
import { request } from 'node:http';
import { join } from 'node:path';
import { createLocalDiskBlobStore } from '@media/blobstore';
import { storageAlone } from './storage-alone.js';
import { cutUpload, firstPatchOffset, runUpload } from './tus-client.js';

const accountId = 'acc_tus';
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

const alone = storageAlone('storage-tus-');
const { start, stop } = alone;

const parts = () => readdir(join(alone.dataDir, 'storage', 'tus'));

test('an upload cut at 60 % resumes after Storage restarts, byte-identical and listed', async () => {
  let client = await start();
  const data = randomBytes(8 * 1024 * 1024);
  const { file, upload } = await client.registerFile({ accountId, fileName: 'clip.bin' });
  const url = upload!.url;
  const cutAt = await cutUpload(data, { endpoint: url, chunkSize: 512 * 1024 }, 0.6);

  const port = new URL(url).port;
  await stop();
  client = await start(port);

  const resumed = firstPatchOffset();
  expect(await runUpload(data, { uploadUrl: url, ...resumed.options })).toEqual({ ok: true, url });
  expect(resumed.offset()).toBeGreaterThan(data.length * 0.5);
  expect(resumed.offset()).toBeLessThanOrEqual(cutAt);

  const listed = await client.listFiles({ accountId, dirId: file!.dirId });
  expect(listed.files.map((f) => f.fileName)).toEqual(['clip.bin']);
  const chunks: Buffer[] = [];
  for await (const m of client.readFile({ file: { accountId, dirId: file!.dirId, fileName: 'clip.bin' } }))
    chunks.push(Buffer.from(m.chunk));
  expect(sha(Buffer.concat(chunks))).toBe(sha(data));
  expect(await parts()).toEqual([]);
}, 60_000);

test('an upload ended by its client (DELETE) leaves no part, and the URL may start over', async () => {
  const client = await alone.client();
  const { upload } = await client.registerFile({ accountId, fileName: 'ended.bin' });
  const url = upload!.url;
  const tus = { 'Tus-Resumable': '1.0.0' };
  expect((await fetch(url, { method: 'POST', headers: { ...tus, 'Upload-Length': '10' } })).status).toBe(201);
  const patch = await fetch(url, {
    method: 'PATCH',
    headers: { ...tus, 'Upload-Offset': '0', 'Content-Type': 'application/offset+octet-stream' },
    body: 'abcd',
  });
  expect([patch.status, patch.headers.get('upload-offset')]).toEqual([204, '4']);
  expect((await fetch(url, { method: 'DELETE', headers: tus })).status).toBe(204);
  expect((await fetch(url, { method: 'HEAD', headers: tus })).status).toBe(404);
  expect(await parts()).toEqual([]);

  const again = await runUpload(Buffer.from('0123456789'), { endpoint: url });
  expect(again).toEqual({ ok: true, url });
});

test('an upload whose completion failed is completed by the next HEAD, and resumes as done', async () => {
  const client = await alone.client();
  const data = randomBytes(300_000);
  const { file, upload } = await client.registerFile({ accountId, fileName: 'stuck.bin' });
  const url = upload!.url;
  // A directory where the blob must go: moving the completed part into place fails.
  const key = decodeURIComponent(new URL(url).pathname.slice('/blob/'.length));
  const blobs = createLocalDiskBlobStore({ root: join(alone.dataDir, 'storage', 'blobs'), publicBaseUrl: 'http://x', signingSecret: 'x' });
  await mkdir(blobs.localPath(key), { recursive: true });
  const failed = await runUpload(data, { endpoint: url, uploadUrl: url });
  expect(failed.ok ? 0 : failed.err.originalResponse?.getStatus()).toBe(500);
  expect((await client.listFiles({ accountId, dirId: file!.dirId })).files).toEqual([]);

  await rm(blobs.localPath(key), { recursive: true });
  const head = await fetch(url, { method: 'HEAD', headers: { 'Tus-Resumable': '1.0.0' } });
  expect([head.status, head.headers.get('upload-offset')]).toEqual([200, String(data.length)]);
  expect((await client.listFiles({ accountId, dirId: file!.dirId })).files.map((f) => f.fileName)).toEqual(['stuck.bin']);
  const chunks: Buffer[] = [];
  for await (const m of client.readFile({ file: { accountId, dirId: file!.dirId, fileName: 'stuck.bin' } }))
    chunks.push(Buffer.from(m.chunk));
  expect(sha(Buffer.concat(chunks))).toBe(sha(data));
});

test('a part the disk reserve has no room for is refused (503, Retry-After), and the upload stays', async () => {
  await stop();
  // About 2 GiB above the reserve: a 4 GB part does not fit, registering and creating do.
  const { bavail, bsize } = await statfs(alone.dataDir);
  const client = await start('0', { DISK_RESERVE_MB: String(Math.floor((bavail * bsize) / 2 ** 20) - 2048) });
  const { upload } = await client.registerFile({ accountId, fileName: 'roomy.bin' });
  const url = upload!.url;
  const tus = { 'Tus-Resumable': '1.0.0' };
  expect((await fetch(url, { method: 'POST', headers: { ...tus, 'Upload-Length': String(4e9) } })).status).toBe(201);

  // A PATCH declaring 4 GB, of which nothing is sent: refused before any byte is read.
  const refused = await new Promise<{ status?: number; retryAfter?: string; body: string }>((resolve, reject) => {
    const req = request(url, {
      method: 'PATCH',
      headers: { ...tus, 'Upload-Offset': '0', 'Content-Type': 'application/offset+octet-stream', 'Content-Length': String(4e9) },
    });
    req.on('response', (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (c: string) => (body += c));
      res.on('end', () => {
        resolve({ status: res.statusCode, retryAfter: res.headers['retry-after'], body });
        req.destroy();
      });
    });
    req.on('error', reject);
    req.flushHeaders();
  });
  expect(refused).toEqual({
    status: 503,
    retryAfter: '30',
    body: 'The service is low on storage space. Retry later, or delete files you no longer need.',
  });
  const head = await fetch(url, { method: 'HEAD', headers: tus });
  expect([head.status, head.headers.get('upload-offset')]).toEqual([200, '0']);
});
