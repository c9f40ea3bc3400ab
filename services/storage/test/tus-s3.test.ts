// S3 with S3_UPLOADS=storage (s3rver): upload URLs are the Storage listener's. A plain PUT streams
// through Storage into the object the presigned PUT would have written; a resumable (tus) upload
// goes into an S3 multipart upload under tus/ and, once claimed, is copied into that same key.
// Cut uploads resume after a Storage restart; a dropped plain PUT leaves no multipart upload and
// gives the URL back; a file the plain PUT stored is never overwritten by a tus completion; a part
// past 5 GB gets the spec's sentence; an expired URL is refused and the sweep aborts its multipart
// upload and deletes its objects. S3_UPLOADS=direct is as before.
import { createHash, randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import { loadConfig } from '@media/platform';
import { s3Env, startS3Server, waitFor, type S3TestServer } from '@media/testkit';
import { storageConfigSpec } from '../src/index.js';
import { storageAlone } from './storage-alone.js';
import { cutUpload, firstPatchOffset, runUpload } from './tus-client.js';

const accountId = 'acc_tus_s3';
const SECRET = 'tus-s3-test-signing-secret-0123456789';
const MiB = 1024 * 1024;
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const tus = { 'Tus-Resumable': '1.0.0' };

let s3: S3TestServer;
beforeAll(async () => {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  s3 = await startS3Server();
}, 30_000);
// Declared after the S3 server's start, before its stop: Storage stops first.
const alone = storageAlone('storage-tus-s3-', {
  base: () => ({ BLOB_SIGNING_SECRET: SECRET, SWEEP_INTERVAL_SEC: '1', ...s3Env(s3) }),
  defaults: { S3_UPLOADS: 'storage' },
});
const { start, stop } = alone;
afterAll(async () => {
  await stop();
  await s3?.stop();
});
afterEach(() => {
  alone.shiftMs = 0;
});

const keyOf = (url: string) => decodeURIComponent(new URL(url).pathname.slice('/blob/'.length));
/** What the tus side keeps in the bucket: its objects and its open multipart uploads. */
async function tusLeftovers() {
  return { objects: await s3.listKeys('tus/'), multipart: await s3.listMultipartUploads('tus/') };
}
const none = { objects: [], multipart: [] };

async function download(client: Awaited<ReturnType<typeof start>>, dirId: string, fileName: string): Promise<Buffer> {
  const { download } = await client.getDownload({ file: { accountId, dirId, fileName } });
  // Downloads stay presigned S3 GETs.
  expect(download!.url.startsWith(s3.endpoint)).toBe(true);
  return Buffer.from(await (await fetch(download!.url)).arrayBuffer());
}

test('a tus upload cut at 60 % resumes after Storage restarts, into the blob key, byte-identical and listed', async () => {
  let client = await start();
  const data = randomBytes(20 * MiB);
  const { file, upload } = await client.registerFile({ accountId, fileName: 'clip.bin' });
  const url = upload!.url;
  expect(url.startsWith(alone.running!.publicBaseUrl!)).toBe(true);
  const cutAt = await cutUpload(data, { endpoint: url, uploadUrl: url }, 0.6);
  // What S3 kept of the cut PATCH: a HEAD waits for that PATCH to finish storing its parts.
  const head = await fetch(url, { method: 'HEAD', headers: tus });
  const kept = Number(head.headers.get('upload-offset'));
  expect(kept).toBeGreaterThan(0);
  expect(kept).toBeLessThanOrEqual(cutAt);

  const port = new URL(url).port;
  await stop();
  client = await start(port);

  // A new client after the restart resumes from what S3 kept (whole parts, and the cut's tail as
  // an incomplete part), not from zero.
  const resumed = firstPatchOffset();
  expect(await runUpload(data, { uploadUrl: url, ...resumed.options })).toEqual({ ok: true, url });
  expect(resumed.offset()).toBe(kept);

  const listed = await client.listFiles({ accountId, dirId: file!.dirId });
  expect(listed.files.map((f) => f.fileName)).toEqual(['clip.bin']);
  const info = await client.getFileInfo({ file: { accountId, dirId: file!.dirId, fileName: 'clip.bin' } });
  expect(Number(info.fileInfo!.fileSize)).toBe(data.length);
  expect(sha(await download(client, file!.dirId, 'clip.bin'))).toBe(sha(data));
  // The same object key the plain PUT writes, and nothing of the tus side left.
  expect(await s3.listKeys(keyOf(url))).toEqual([keyOf(url)]);
  expect(await tusLeftovers()).toEqual(none);
}, 120_000);

test('the plain PUT streams through Storage into the same key; the URL is then spent for both protocols', async () => {
  const client = await alone.client();
  const data = randomBytes(9 * MiB); // more than one part of the multipart writer
  const { file, upload } = await client.registerFile({ accountId, fileName: 'plain.bin' });
  const url = upload!.url;
  const put = await fetch(url, { method: 'PUT', body: data });
  expect([put.status, await put.json()]).toEqual([200, { ok: true }]);
  expect(await s3.listKeys(keyOf(url))).toEqual([keyOf(url)]);
  expect(sha(await download(client, file!.dirId, 'plain.bin'))).toBe(sha(data));

  expect((await fetch(url, { method: 'PUT', body: 'again' })).status).toBe(409);
  const created = await fetch(url, { method: 'POST', headers: { ...tus, 'Upload-Length': '5' } });
  expect(created.status).toBe(409);
}, 60_000);

test('a plain PUT dropped mid-body leaves no multipart upload, and the URL may be used again', async () => {
  const client = await alone.client();
  const data = randomBytes(12 * MiB);
  const { file, upload } = await client.registerFile({ accountId, fileName: 'dropped.bin' });
  const url = new URL(upload!.url);
  const socket = connect(Number(url.port), url.hostname);
  await once(socket, 'connect');
  socket.write(`PUT ${url.pathname}${url.search} HTTP/1.1\r\nHost: ${url.host}\r\nContent-Length: ${data.length}\r\n\r\n`);
  socket.write(data.subarray(0, 9 * MiB)); // past the writer's first 8 MiB part: a multipart upload
  await waitFor('the multipart upload of the PUT', async () => (await s3.listMultipartUploads(keyOf(url.href))).length === 1);
  socket.destroy();
  await waitFor('the dropped PUT aborted', async () => (await s3.listMultipartUploads(keyOf(url.href))).length === 0);
  expect(await s3.listKeys(keyOf(url.href))).toEqual([]);

  // The claim is given back as the PUT fails; the same URL then takes the whole file.
  const again = await waitFor('the URL usable again', async () => {
    const res = await fetch(url, { method: 'PUT', body: data });
    return res.status === 409 ? (await res.arrayBuffer(), false) : res;
  });
  expect(again.status).toBe(200);
  expect(sha(await download(client, file!.dirId, 'dropped.bin'))).toBe(sha(data));
}, 30_000);

test('a tus upload finishing after the plain PUT stored the file is refused (409), never overwriting it', async () => {
  const client = await alone.client();
  const { file, upload } = await client.registerFile({ accountId, fileName: 'race.bin' });
  const url = upload!.url;
  expect((await fetch(url, { method: 'POST', headers: { ...tus, 'Upload-Length': '10' } })).status).toBe(201);
  const first = await fetch(url, {
    method: 'PATCH',
    headers: { ...tus, 'Upload-Offset': '0', 'Content-Type': 'application/offset+octet-stream' },
    body: 'abcd',
  });
  expect([first.status, first.headers.get('upload-offset')]).toEqual([204, '4']);

  expect((await fetch(url, { method: 'PUT', body: 'plain wins' })).status).toBe(200);
  const last = await fetch(url, {
    method: 'PATCH',
    headers: { ...tus, 'Upload-Offset': '4', 'Content-Type': 'application/offset+octet-stream' },
    body: 'efghij',
  });
  expect(last.status).toBe(409);
  expect((await download(client, file!.dirId, 'race.bin')).toString()).toBe('plain wins');
  // The completed file is no upload any more: the sweep removes what tus had.
  expect(await waitFor('the tus objects of race.bin swept', async () => (await s3.listKeys(`tus/${keyOf(url)}`)).length === 0)).toBe(true);
}, 30_000);

test('a 0-byte file uploads with tus: created complete, listed with size 0, nothing of tus left', async () => {
  const client = await alone.client();
  const { file, upload } = await client.registerFile({ accountId, fileName: 'empty.txt' });
  const url = upload!.url;
  const created = await fetch(url, { method: 'POST', headers: { ...tus, 'Upload-Length': '0' } });
  expect(created.status).toBe(201);
  const listed = await client.listFiles({ accountId, dirId: file!.dirId });
  expect(listed.files.map((f) => f.fileName)).toEqual(['empty.txt']);
  const info = await client.getFileInfo({ file: { accountId, dirId: file!.dirId, fileName: 'empty.txt' } });
  expect(Number(info.fileInfo!.fileSize)).toBe(0);
  expect((await download(client, file!.dirId, 'empty.txt')).length).toBe(0);
  expect(await s3.listKeys(keyOf(url))).toEqual([keyOf(url)]);
  expect(await tusLeftovers()).toEqual(none);
}, 30_000);

test('a completion S3 refused on the last PATCH is done by the next HEAD: every byte was in the parts', async () => {
  // Storage reaches S3 through this proxy, which fails CompleteMultipartUpload while asked to.
  let failCompletes = false;
  const target = new URL(s3.endpoint);
  const proxy = createServer((req, res) => {
    if (failCompletes && req.method === 'POST' && (req.url ?? '').includes('uploadId=')) {
      req.resume();
      res.writeHead(500, { 'content-type': 'application/xml' }).end('<Error><Code>InternalError</Code><Message>down</Message></Error>');
      return;
    }
    const upstream = request({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers }, (r) => {
      res.writeHead(r.statusCode ?? 502, r.headers);
      r.pipe(res);
    });
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  try {
    await stop();
    const client = await start('0', {
      S3_UPLOADS: 'storage',
      S3_ENDPOINT: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
      S3_PUBLIC_ENDPOINT: s3.endpoint,
    });
    const { file, upload } = await client.registerFile({ accountId, fileName: 'refused.txt' });
    const url = upload!.url;
    expect((await fetch(url, { method: 'POST', headers: { ...tus, 'Upload-Length': '10' } })).status).toBe(201);
    failCompletes = true;
    const last = await fetch(url, {
      method: 'PATCH',
      headers: { ...tus, 'Upload-Offset': '0', 'Content-Type': 'application/offset+octet-stream' },
      body: 'abcdefghij',
    });
    expect(last.status).toBe(500);
    failCompletes = false;

    const head = await fetch(url, { method: 'HEAD', headers: tus });
    expect([head.status, head.headers.get('upload-offset')]).toEqual([200, '10']);
    const listed = await client.listFiles({ accountId, dirId: file!.dirId });
    expect(listed.files.map((f) => f.fileName)).toEqual(['refused.txt']);
    expect((await download(client, file!.dirId, 'refused.txt')).toString()).toBe('abcdefghij');
  } finally {
    await stop();
    await new Promise((resolve) => proxy.close(resolve));
    proxy.closeAllConnections();
  }
}, 30_000);

test('a size past 5 GB is refused with the spec sentence, at creation and on a part', async () => {
  const client = await alone.client();
  const { upload } = await client.registerFile({ accountId, fileName: 'huge.mov' });
  const url = upload!.url;
  const sentence = "File 'huge.mov' size (5000.00 MB) exceeds max file size limit of 5 GB.";
  const res = await fetch(url, { method: 'POST', headers: { ...tus, 'Upload-Length': String(5e9 + 1) } });
  expect([res.status, await res.text()]).toEqual([403, sentence]);

  expect((await fetch(url, { method: 'POST', headers: { ...tus, 'Upload-Defer-Length': '1' } })).status).toBe(201);
  const patch = await fetch(url, {
    method: 'PATCH',
    headers: { ...tus, 'Upload-Offset': '0', 'Upload-Length': String(5e9 + 1), 'Content-Type': 'application/offset+octet-stream' },
    body: 'x',
  });
  expect([patch.status, await patch.text()]).toEqual([403, sentence]);
});

test('an expired URL is refused, and the sweep aborts its multipart upload and deletes its objects', async () => {
  const client = await alone.client();
  const { upload } = await client.registerFile({ accountId, fileName: 'late.bin' });
  const url = upload!.url;
  const id = `tus/${keyOf(url)}`;
  expect((await fetch(url, { method: 'POST', headers: { ...tus, 'Upload-Length': String(12 * MiB) } })).status).toBe(201);
  // 6 MiB: one whole part of the multipart upload.
  const patch = await fetch(url, {
    method: 'PATCH',
    headers: { ...tus, 'Upload-Offset': '0', 'Content-Type': 'application/offset+octet-stream' },
    body: randomBytes(6 * MiB),
  });
  expect([patch.status, patch.headers.get('upload-offset')]).toEqual([204, String(6 * MiB)]);
  expect(await s3.listMultipartUploads(id)).toEqual([id]);
  expect(await s3.listKeys(id)).toEqual([`${id}.info`]);

  alone.shiftMs = 6 * 60_000; // past the URL's 5 minutes
  const head = await fetch(url, { method: 'HEAD', headers: tus });
  expect(head.status).toBe(403);
  const more = await fetch(url, {
    method: 'PATCH',
    headers: { ...tus, 'Upload-Offset': String(6 * MiB), 'Content-Type': 'application/offset+octet-stream' },
    body: randomBytes(MiB),
  });
  expect([more.status, await more.text()]).toEqual([403, 'This URL has expired.']);
  // Every upload is past its URL now (this one, and those earlier tests left open): all swept.
  await waitFor('the expired uploads swept', async () => {
    const left = await tusLeftovers();
    return left.objects.length === 0 && left.multipart.length === 0;
  });
  expect(await tusLeftovers()).toEqual(none);
}, 30_000);

interface Answer {
  status: number;
  retryAfter: string | undefined;
  body: string;
}
/**
 * An upload from a given loopback address, sent with `Expect: 100-continue`: `admitted` resolves
 * once the listener has taken its headers (its place counted), and the first bytes are sent; `end`
 * sends the rest later, `drop` cuts it.
 */
function from(
  localAddress: string,
  url: string,
  method: string,
  contentLength: number,
  first: string,
  headers: Record<string, string> = {},
) {
  const req = request(url, {
    method,
    localAddress,
    headers: { ...headers, expect: '100-continue', 'content-length': String(contentLength) },
  });
  const admitted = once(req, 'continue').then(() => void req.write(first));
  const answer = new Promise<Answer>((resolve, reject) => {
    req.on('response', (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, retryAfter: res.headers['retry-after'], body }));
    });
    req.on('error', reject);
  });
  answer.catch(() => undefined); // a held upload this test drops
  req.flushHeaders();
  return { admitted, answer, end: (rest: string) => req.end(rest), drop: () => req.destroy() };
}
/** An upload request answered at once when let in (403: not signed). */
const probe = (localAddress: string) => from(localAddress, `${alone.running!.publicBaseUrl}/blob/not-signed`, 'PUT', 1, 'x').answer;

test('uploads in progress are capped per replica and per address: 503 with Retry-After, the others proceed once one ends', async () => {
  await stop();
  const client = await start('0', { S3_UPLOADS: 'storage', S3_UPLOADS_IN_FLIGHT: '3', S3_UPLOADS_PER_ADDRESS: '2' });
  const urls: Record<string, string> = {};
  let dirId = '';
  for (const name of ['a.bin', 'b.bin', 'c.bin', 'd.bin']) {
    const { file, upload } = await client.registerFile({ accountId, fileName: name, ...(dirId ? { dirId } : {}) });
    dirId = file!.dirId;
    urls[name] = upload!.url;
  }
  expect((await fetch(urls['c.bin']!, { method: 'POST', headers: { ...tus, 'Upload-Length': '10' } })).status).toBe(201);
  // Two slow plain PUTs from one address: its third upload is refused before its body is read.
  const a = from('127.0.0.1', urls['a.bin']!, 'PUT', 10, 'slow ');
  const b = from('127.0.0.1', urls['b.bin']!, 'PUT', 10, 'slow ');
  await Promise.all([a.admitted, b.admitted]);
  expect(await probe('127.0.0.1')).toEqual({
    status: 503,
    retryAfter: '5',
    body: JSON.stringify({
      ok: false,
      error: 'Too many uploads from your address in progress: at most 2 at once. Retry when one of them has finished.',
    }),
  });
  // A slow resumable upload from another address takes the replica's third place.
  const c = from('127.0.0.2', urls['c.bin']!, 'PATCH', 10, 'slow ', {
    ...tus,
    'Upload-Offset': '0',
    'Content-Type': 'application/offset+octet-stream',
  });
  await c.admitted;
  expect(await probe('127.0.0.3')).toEqual({
    status: 503,
    retryAfter: '5',
    body: JSON.stringify({ ok: false, error: 'The service has too many uploads in progress. Retry shortly.' }),
  });

  // One held upload ends (dropped): the next one is let in, and the held ones finish.
  a.drop();
  const d = await waitFor('a place free again', async () => {
    const res = await fetch(urls['d.bin']!, { method: 'PUT', body: 'after' });
    return res.status === 503 ? (await res.arrayBuffer(), false) : res;
  });
  expect(d.status).toBe(200);
  b.end('bytes');
  expect((await b.answer).status).toBe(200);
  c.end('bytes');
  expect((await c.answer).status).toBe(204);
  const listed = await client.listFiles({ accountId, dirId });
  expect(listed.files.map((f) => f.fileName).sort()).toEqual(['b.bin', 'c.bin', 'd.bin']);
}, 60_000);

test('S3_UPLOADS=direct (the default): a presigned S3 PUT, no listener, and OPTIONS tells no tus', async () => {
  await stop();
  const client = await start('0', {});
  expect(alone.running!.publicBaseUrl).toBeUndefined();
  const { file, upload } = await client.registerFile({ accountId, fileName: 'direct.bin' });
  expect(upload!.url.startsWith(s3.endpoint)).toBe(true);
  // What @media/client asks before choosing tus: the answer carries no Tus-Resumable.
  const options = await fetch(upload!.url, { method: 'OPTIONS' });
  expect(options.headers.get('tus-resumable')).toBeNull();
  const put = await fetch(upload!.url, { method: 'PUT', headers: upload!.headers, body: 'direct bytes' });
  expect(put.status).toBe(200);
  expect((await download(client, file!.dirId, 'direct.bin')).toString()).toBe('direct bytes');
  await stop();
});

test('switching S3_UPLOADS from direct to storage: a URL presigned before the switch still stores a listed file', async () => {
  let client = await start('0', {});
  const { file, upload } = await client.registerFile({ accountId, fileName: 'switched.bin' });
  expect(upload!.url.startsWith(s3.endpoint)).toBe(true);
  await stop();
  client = await start();
  // The presigned PUT lands while the replicas already take uploads through the listener.
  const put = await fetch(upload!.url, { method: 'PUT', headers: upload!.headers, body: 'presigned bytes' });
  expect(put.status).toBe(200);
  const listed = await client.listFiles({ accountId, dirId: file!.dirId });
  expect(listed.files.map((f) => f.fileName)).toEqual(['switched.bin']);
  expect((await download(client, file!.dirId, 'switched.bin')).toString()).toBe('presigned bytes');
  await stop();
});

test('S3_UPLOADS=storage needs S3_BUCKET and BLOB_SIGNING_SECRET, and says how to fix either', () => {
  expect(() => loadConfig(storageConfigSpec, { S3_UPLOADS: 'storage' })).toThrow(/S3_UPLOADS=storage applies to the S3 backend only/);
  expect(() => loadConfig(storageConfigSpec, { S3_UPLOADS: 'storage', ...s3Env(s3) })).toThrow(
    /S3_UPLOADS=storage needs BLOB_SIGNING_SECRET: every Storage replica must accept the upload URLs the others sign/,
  );
  expect(() => loadConfig(storageConfigSpec, { S3_UPLOADS: 'resumable' })).toThrow(/S3_UPLOADS/);
});
