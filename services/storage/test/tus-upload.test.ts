// Resumable uploads (tus) on the signed upload URL of POST /file, on local disk and (networked)
// on S3 with S3_UPLOADS=storage: an upload cut mid-way is resumed by another client (another
// process, for a 300 MB file) from the URL alone and ends byte-identical and listed; a size past
// 5 GB gets the spec's sentence; an expired URL is refused; the parts of an upload whose file
// went are swept. The plain PUT is untouched (its own suites).
import { createHash, randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createUrlSigner } from '@media/blobstore';
import { startTestStack, testAdapters, type TestStack } from '@media/stack/testing';
import { runTusUpload } from '@media/testkit';
import { cutUpload, firstPatchOffset, runUpload } from './tus-client.js';

const SECRET = 'tus-test-signing-secret-0123456789abcdef';
let stack: TestStack;
let authorization: string;
let scratch: string;

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'tus-upload-'));
  // Networked: blobs on S3 (s3rver), uploads through Storage's listener (S3_UPLOADS=storage).
  const s3Uploads = testAdapters() === 'networked' ? { S3_UPLOADS: 'storage' } : {};
  stack = await startTestStack({ BLOB_SIGNING_SECRET: SECRET, SWEEP_INTERVAL_SEC: '1', ...s3Uploads });
  ({ authorization } = await stack.newAccount());
}, 60_000);
afterAll(async () => {
  await stack?.close();
  await rm(scratch, { recursive: true, force: true });
});

async function api(method: string, path: string, body?: unknown) {
  const res = await fetch(`${stack.gatewayUrl}${path}`, {
    method,
    headers: { authorization, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

async function register(fileName: string) {
  const reg = await api('POST', '/file', { file_name: fileName });
  expect(reg.status).toBe(200);
  return { url: reg.body.upload.url as string, dirId: reg.body.file.dir_id as string };
}

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const keyOf = (url: string) => decodeURIComponent(new URL(url).pathname.slice('/blob/'.length));
/**
 * What the upload on `url` keeps until it completes. Local disk: its part file and record (named
 * by its id, the blob key in base64url). S3: its record object and its open multipart upload.
 */
async function partsOf(url: string): Promise<string[]> {
  const s3 = stack.networked?.s3;
  if (s3) {
    const id = `tus/${keyOf(url)}`;
    return [...(await s3.listKeys(id)), ...(await s3.listMultipartUploads(id)).map((k) => `${k} (multipart upload)`)].sort();
  }
  const id = Buffer.from(keyOf(url)).toString('base64url');
  return (await readdir(join(stack.dataDir, 'storage', 'tus'))).filter((n) => n.startsWith(id)).sort();
}

/** A file of `size` random bytes made on disk (streamed), and its sha256. */
async function randomFile(path: string, size: number): Promise<string> {
  const hash = createHash('sha256');
  let left = size;
  const chunks = Readable.from(
    (function* () {
      while (left > 0) {
        const chunk = randomBytes(Math.min(left, 1024 * 1024));
        left -= chunk.length;
        hash.update(chunk);
        yield chunk;
      }
    })(),
  );
  await pipeline(chunks, createWriteStream(path));
  return hash.digest('hex');
}

/** Polls `check` until it holds or the deadline passes (the sweep runs each second). */
async function until(check: () => Promise<boolean>, withinMs: number): Promise<boolean> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    if (await check()) return true;
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 50));
  }
}

test('an upload cut at 60 % is resumed by a new client from the URL, byte-identical and listed', async () => {
  const data = randomBytes(24 * 1024 * 1024);
  const { url, dirId } = await register('big.bin');

  // The first client is given the URL as upload and as endpoint (the advised use): its HEAD finds
  // no upload yet (404), so it creates one there (POST); it is cut at about 60 %.
  const cutAt = await cutUpload(data, { endpoint: url, uploadUrl: url, chunkSize: 1024 * 1024 }, 0.6);

  // Nothing is listed yet: the file is still pending.
  expect((await api('GET', `/directory/${dirId}`)).body.files).toEqual([]);

  // A new client, knowing only the URL, asks for the offset and sends the rest.
  const resumed = firstPatchOffset();
  const second = await runUpload(data, { uploadUrl: url, chunkSize: 4 * 1024 * 1024, ...resumed.options });
  expect(second).toEqual({ ok: true, url });
  // It resumed where the server had the bytes, not from zero.
  expect(resumed.offset()).toBeGreaterThan(data.length * 0.5);
  expect(resumed.offset()).toBeLessThanOrEqual(cutAt);

  const listed = await api('GET', `/directory/${dirId}`);
  expect(listed.body.files.map((f: { file_name: string }) => f.file_name)).toEqual(['big.bin']);
  const info = await api('GET', `/file/${dirId}/big.bin`);
  expect(info.body.file_info.file_size).toBe(data.length);
  const download = await api('GET', `/file/download/${dirId}/big.bin`);
  const got = Buffer.from(await (await fetch(download.body.download.url)).arrayBuffer());
  expect(sha256(got)).toBe(sha256(data));

  // The URL is spent: the plain PUT and a new tus upload (POST) are both refused, and no part is
  // left. A HEAD tells a client whose last answer was lost that the upload is complete.
  expect((await fetch(url, { method: 'PUT', body: 'again' })).status).toBe(409);
  const head = await fetch(url, { method: 'HEAD', headers: { 'Tus-Resumable': '1.0.0' } });
  expect([head.status, head.headers.get('upload-offset'), head.headers.get('upload-length')]).toEqual([
    200,
    String(data.length),
    String(data.length),
  ]);
  const create = await fetch(url, { method: 'POST', headers: { 'Tus-Resumable': '1.0.0', 'Upload-Length': '5' } });
  expect([create.status, await create.text()]).toEqual([409, 'This upload URL has already been used.']);
  expect(await partsOf(url)).toEqual([]);
}, 60_000);

test('a 300 MB upload cut at about 60 % (its process killed) is resumed by another process: sha256-identical, listed', async () => {
  const path = join(scratch, 'big-300.bin');
  const size = 300 * 1024 * 1024;
  const digest = await randomFile(path, size);
  const { url, dirId } = await register('big-300.bin');

  const first = await runTusUpload(path, url, { cutAt: 0.6, chunkBytes: 64 * 1024 * 1024 });
  expect(first).toMatchObject({ ok: false });
  expect(first.cutAfter).toBeGreaterThanOrEqual(size * 0.6);
  const second = await runTusUpload(path, url, { chunkBytes: 64 * 1024 * 1024 });
  expect(second).toMatchObject({ ok: true });
  // It went on from what the service kept, not from zero.
  expect(second.patchFrom[0]).toBeGreaterThan(0);

  const listed = await api('GET', `/directory/${dirId}`);
  expect(listed.body.files.map((f: { file_name: string }) => f.file_name)).toEqual(['big-300.bin']);
  const download = await api('GET', `/file/download/${dirId}/big-300.bin`);
  const res = await fetch(download.body.download.url);
  const hash = createHash('sha256');
  await pipeline(Readable.fromWeb(res.body! as Parameters<typeof Readable.fromWeb>[0]), hash);
  expect(hash.digest('hex')).toBe(digest);
  expect(await partsOf(url)).toEqual([]);
  await rm(path);
}, 240_000);

test('a size past 5 GB is refused with the spec sentence, at creation and on a part', async () => {
  const { url } = await register('huge.mov');
  const res = await fetch(url, { method: 'POST', headers: { 'Tus-Resumable': '1.0.0', 'Upload-Length': String(5e9 + 1) } });
  expect(res.status).toBe(403);
  expect(await res.text()).toBe("File 'huge.mov' size (5000.00 MB) exceeds max file size limit of 5 GB.");

  // A length declared later (creation-defer-length) is held to the same limit, on the part.
  const tus = { 'Tus-Resumable': '1.0.0' };
  expect((await fetch(url, { method: 'POST', headers: { ...tus, 'Upload-Defer-Length': '1' } })).status).toBe(201);
  const patch = await fetch(url, {
    method: 'PATCH',
    headers: { ...tus, 'Upload-Offset': '0', 'Upload-Length': String(5e9 + 1), 'Content-Type': 'application/offset+octet-stream' },
    body: 'x',
  });
  expect(patch.status).toBe(403);
  expect(await patch.text()).toBe("File 'huge.mov' size (5000.00 MB) exceeds max file size limit of 5 GB.");
});

test('an expired URL is refused', async () => {
  const { url } = await register('late.bin');
  // The same upload, signed with the stack's secret by a clock ten minutes behind: expired.
  const past = createUrlSigner({ publicBaseUrl: stack.publicBaseUrl!, secret: SECRET, now: () => Date.now() - 10 * 60_000 });
  const expired = past.signUpload(keyOf(url), { expiresInSeconds: 300, maxBytes: 5e9 }).url;
  const result = await runUpload(Buffer.from('late bytes'), { endpoint: expired });
  expect(result.ok).toBe(false);
  if (result.ok) return;
  expect(result.err.originalResponse?.getStatus()).toBe(403);
  expect(result.err.originalResponse?.getBody()).toBe('This URL has expired.');
});

test('OPTIONS tells the protocol; the parts of an upload whose file was deleted are swept', async () => {
  const { url, dirId } = await register('gone.bin');
  const options = await fetch(url, { method: 'OPTIONS' });
  expect(options.headers.get('tus-version')).toBe('1.0.0');
  expect(options.headers.get('tus-extension')).toContain('termination');

  const created = await fetch(url, { method: 'POST', headers: { 'Tus-Resumable': '1.0.0', 'Upload-Length': '100' } });
  expect(created.status).toBe(201);
  expect(created.headers.get('location')).toBe(url);
  expect(created.headers.get('upload-expires')).toBeTruthy();
  const parts = await partsOf(url); // the part and its record
  if (stack.networked?.s3) expect(parts).toEqual([`tus/${keyOf(url)} (multipart upload)`, `tus/${keyOf(url)}.info`]);
  else expect(parts).toEqual([parts[0], `${parts[0]}.json`]);

  expect((await api('DELETE', `/file/${dirId}/gone.bin`)).status).toBe(200);
  expect(await until(async () => (await partsOf(url)).length === 0, 10_000)).toBe(true);
}, 20_000);
