// Files and directories through the public API, and the signed URLs they hand out, as a user
// with curl would use them (fetch against the real listeners on loopback).
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { connect } from 'node:net';
import { join } from 'node:path';
import { StorageService } from '@media/proto/media/storage/v1/storage_pb.js';
import { startTestStack, type TestStack } from '@media/stack/testing';
import { createServiceClient, Events, subscribeEvent } from '@media/platform';
import { waitFor } from '@media/testkit';
import { caller, ISO_MS, PNG, sleep } from './helpers.js';

let stack: TestStack;
let api: ReturnType<typeof caller>;
let auth: string;
let other: ReturnType<typeof caller>;

beforeAll(async () => {
  stack = await startTestStack({ SWEEP_INTERVAL_SEC: '1' });
  auth = (await stack.newAccount()).authorization;
  api = caller(stack, auth);
  other = caller(stack, (await stack.newAccount()).authorization);
});
afterAll(() => stack?.close());

/**
 * Uploads go to presigned S3 URLs (networked, S3_UPLOADS=direct); with S3_UPLOADS=storage
 * (TEST_S3_UPLOADS=storage) they go to Storage's listener on S3 as on local disk.
 */
const presignedUploads = () => stack.adapters === 'networked' && stack.publicBaseUrl === undefined;

async function register(name: string, dirId?: string) {
  const res = await api('POST', '/file', dirId ? { file_name: name, dir_id: dirId } : { file_name: name });
  expect(res.status).toBe(200);
  return res.body as {
    file: { dir_id: string; file_name: string; file_path: string; added_on: string };
    upload: { url: string; method: string; headers: Record<string, string>; expiresInSeconds: number };
  };
}

async function put(upload: { url: string; headers: Record<string, string> }, bytes: Buffer) {
  return fetch(upload.url, { method: 'PUT', headers: upload.headers, body: bytes });
}

describe('directories', () => {
  test('POST /directory: default and explicit ttl; ids dir_ + 20', async () => {
    const a = await api('POST', '/directory');
    expect(a.status).toBe(200);
    expect(a.body).toEqual({ ok: true, directory: { id: expect.stringMatching(/^dir_[a-z0-9]{20}$/), ttl: 86400 } });
    const b = await api('POST', '/directory', { ttl: 604800 });
    expect(b.body.directory.ttl).toBe(604800);
    const list = await api('GET', '/directory');
    expect(list.body.directories).toEqual(
      expect.arrayContaining([{ id: a.body.directory.id, ttl: 86400, added_on: expect.stringMatching(ISO_MS) }]),
    );
  });

  // ttl refusals: body-rules.test.ts (the fast level; Storage is never asked).

  test('GET /directory/{id} lists uploaded files only; missing -> 404', async () => {
    const { file, upload } = await register('a.png');
    await register('pending.png', file.dir_id);
    expect((await put(upload, PNG)).status).toBe(200);
    const res = await api('GET', `/directory/${file.dir_id}`);
    expect(res.body).toEqual({ ok: true, files: [{ file_name: 'a.png', added_on: expect.stringMatching(ISO_MS) }] });
    for (const id of ['dir_aaaaaaaaaaaaaaaaaaaa', 'x'.repeat(65), 'bad%20id']) {
      expect(await api('GET', `/directory/${id}`)).toMatchObject({ status: 404, body: { ok: false, error: 'Directory not found' } });
    }
  });
});

describe('files', () => {
  test('register, upload, info, download byte-identical with Range, delete', async () => {
    const { file, upload } = await register('pic.png');
    expect(file).toEqual({
      dir_id: expect.stringMatching(/^dir_/),
      file_name: 'pic.png',
      file_path: `${file.dir_id}/pic.png`,
      added_on: expect.stringMatching(ISO_MS),
    });
    expect(upload).toMatchObject({ method: 'PUT', expiresInSeconds: 300, headers: expect.any(Object) });
    if (presignedUploads()) {
      // Blobs on S3 (s3rver): a presigned S3 URL, and no listener base URL at all.
      expect(stack.publicBaseUrl).toBeUndefined();
      expect(upload.url.startsWith(stack.networked!.s3!.endpoint)).toBe(true);
    } else {
      expect(upload.url.startsWith(stack.publicBaseUrl!)).toBe(true);
    }

    // Registered but not uploaded: 404 until the bytes arrive.
    expect(await api('GET', `/file/${file.file_path}`)).toMatchObject({ status: 404, body: { error: 'File not found in directory' } });
    expect((await put(upload, PNG)).status).toBe(200);

    const info = await api('GET', `/file/${file.file_path}`);
    expect(info.body).toEqual({ ok: true, file_info: { file_path: file.file_path, file_type: 'image/png', file_size: PNG.length } });

    const dl = await api('GET', `/file/download/${file.file_path}`);
    expect(dl.body).toEqual({
      ok: true,
      download: {
        url: expect.any(String),
        method: 'GET',
        expiresInSeconds: 300,
        file_path: file.file_path,
        file_size: PNG.length,
        file_type: 'image/png',
      },
    });
    const got = await fetch(dl.body.download.url);
    expect(got.status).toBe(200);
    expect(got.headers.get('content-length')).toBe(String(PNG.length));
    expect(got.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await got.arrayBuffer()).equals(PNG)).toBe(true);
    const part = await fetch(dl.body.download.url, { headers: { range: 'bytes=1-3' } });
    expect(part.status).toBe(206);
    expect(Buffer.from(await part.arrayBuffer()).equals(PNG.subarray(1, 4))).toBe(true);

    if (stack.adapters === 'networked') {
      // s3rver does not check SigV4 signatures (real S3 does); it does refuse an unknown access key.
      const forged = dl.body.download.url.replace(/X-Amz-Credential=[^%&]+/, 'X-Amz-Credential=NOBODY');
      expect(forged).not.toBe(dl.body.download.url);
      expect((await fetch(forged)).status).toBe(403);
    } else {
      const tampered = dl.body.download.url.replace(/sig=([^&])/, (_m: string, c: string) => `sig=${c === 'A' ? 'B' : 'A'}`);
      expect(tampered).not.toBe(dl.body.download.url);
      expect((await fetch(tampered)).status).toBe(403);
    }

    expect(await api('DELETE', `/file/${file.file_path}`)).toMatchObject({
      status: 200,
      body: { ok: true, deleted: { file_path: file.file_path } },
    });
    expect((await api('GET', `/file/${file.file_path}`)).status).toBe(404);
    expect((await api('DELETE', `/file/${file.file_path}`)).status).toBe(404);
    // The blob went at once: the old signed URL finds nothing.
    expect((await fetch(dl.body.download.url)).status).toBe(404);
  });

  test('every answer of a local-disk signed URL carries its own X-Request-Id, errors included', async () => {
    if (stack.adapters === 'networked') return; // S3 answers those itself (x-amz-request-id)
    const { file, upload } = await register('ids.png');
    const uploaded = await put(upload, PNG);
    const dl = await api('GET', `/file/download/${file.file_path}`);
    const answers = [
      uploaded,
      await fetch(dl.body.download.url),
      await fetch(dl.body.download.url.replace(/sig=([^&])/, (_m: string, c: string) => `sig=${c === 'A' ? 'B' : 'A'}`)),
      await fetch(new URL('/elsewhere', stack.publicBaseUrl!)),
    ];
    expect(answers.map((r) => r.status)).toEqual([200, 200, 403, 404]);
    const ids = answers.map((r) => r.headers.get('x-request-id'));
    for (const id of ids) expect(id).toMatch(/^req_[a-z0-9]{20}$/);
    expect(new Set(ids).size).toBe(ids.length);
    await Promise.all(answers.map((r) => r.arrayBuffer()));
  });

  test('a second PUT to the same URL is refused; the first bytes stay', async () => {
    const { file, upload } = await register('once.png');
    expect((await put(upload, PNG)).status).toBe(200);
    if (presignedUploads()) {
      // s3rver ignores If-None-Match (real S3 answers 412): check the signed PUT makes S3 enforce it.
      expect(upload.headers).toEqual({ 'If-None-Match': '*' });
      expect(new URL(upload.url).searchParams.get('X-Amz-SignedHeaders')?.split(';')).toContain('if-none-match');
      expect((await api('GET', `/file/${file.file_path}`)).body.file_info.file_size).toBe(PNG.length);
      return;
    }
    const again = await put(upload, Buffer.from('other bytes'));
    expect(again.status).toBe(409);
    expect(await again.json()).toEqual({
      ok: false,
      error:
        'This upload URL has already been used. To replace the file, delete it (DELETE /file/{dirId}/{fileName}), then register the name again (POST /file) and upload to the new URL.',
    });
    expect((await api('GET', `/file/${file.file_path}`)).body.file_info.file_size).toBe(PNG.length);
  });

  test('a client that drops mid-PUT may use the same upload URL again while it is valid', async () => {
    if (stack.adapters === 'networked') return; // S3 URLs: a PUT that did not complete stored nothing there either
    const { file, upload } = await register('retry.png');
    const url = new URL(upload.url);
    // Half of a declared body, then the connection is dropped.
    const socket = connect(Number(url.port), url.hostname);
    await once(socket, 'connect');
    socket.write(`PUT ${url.pathname}${url.search} HTTP/1.1\r\nHost: ${url.host}\r\nContent-Length: ${PNG.length}\r\n\r\n`);
    socket.write(PNG.subarray(0, PNG.length >> 1));
    // The server is writing them: its part-written file (local disk's .tmp) has bytes.
    const temp = join(stack.dataDir, 'storage', 'blobs', '.tmp');
    await waitFor('the half body on disk', async () => {
      const names = await readdir(temp).catch(() => []);
      const sizes = await Promise.all(names.map(async (n) => (await stat(join(temp, n)).catch(() => null))?.size ?? 0));
      return sizes.some((size) => size > 0);
    });
    socket.destroy();
    let again = await put(upload, PNG);
    for (let i = 0; again.status === 409 && i < 20; i++) {
      await again.arrayBuffer();
      await sleep(50); // the server learns of the drop a moment later
      again = await put(upload, PNG);
    }
    expect(again.status).toBe(200);
    expect((await api('GET', `/file/${file.file_path}`)).body.file_info.file_size).toBe(PNG.length);
  });

  test('duplicate names -> 409, also while an upload is pending', async () => {
    const { file, upload } = await register('dup.png');
    const pending = await api('POST', '/file', { file_name: 'dup.png', dir_id: file.dir_id });
    expect(pending).toMatchObject({ status: 409, body: { ok: false, error: 'File name already exists in directory' } });
    await put(upload, PNG);
    expect((await api('POST', '/file', { file_name: 'dup.png', dir_id: file.dir_id })).status).toBe(409);
    // Other names and other directories are fine.
    await register('dup2.png', file.dir_id);
    await register('dup.png');
  });

  test('file names: any Unicode; the spec rules refused with 400', async () => {
    const dir = (await api('POST', '/directory')).body.directory.id;
    for (const name of ['vidéo 🎬 (1).mp4', '😀'.repeat(255), 'a'.repeat(255), '...', 'name with spaces', '%41.png']) {
      const { file, upload } = await register(name, dir);
      expect(file.file_name).toBe(name);
      await put(upload, PNG);
      const info = await api('GET', `/file/${encodeURIComponent(dir)}/${encodeURIComponent(name)}`);
      expect({ name, status: info.status }).toEqual({ name, status: 200 });
    }
    for (const name of ['', 'a'.repeat(256), 'a/b', 'a\\b', 'a\u0000b', 'tab\there', 'del\u007f', '.', '..']) {
      const res = await api('POST', '/file', { file_name: name, dir_id: dir });
      expect({ name, status: res.status }).toEqual({ name, status: 400 });
      expect(res.body.error).toMatch(/^file_name /);
    }
  });

  test('Storage judges dir_id: malformed -> 400, not there -> 404 (body rules: body-rules.test.ts)', async () => {
    expect(await api('POST', '/file', { file_name: 'a', dir_id: 'no/slash' })).toMatchObject({
      status: 400,
      body: { error: 'dir_id must be 1 to 64 letters, digits, underscores or hyphens' },
    });
    expect(await api('POST', '/file', { file_name: 'a', dir_id: 'dir_doesnotexist000000' })).toMatchObject({
      status: 404,
      body: { error: 'Directory not found' },
    });
  });

  test('the body limit is 256 KB in decimal units: 256,000 bytes pass it to Storage (256,001: body-rules.test.ts)', async () => {
    const sized = (bytes: number) => JSON.stringify({ file_name: 'x'.repeat(bytes - '{"file_name":""}'.length) });
    expect(Buffer.byteLength(sized(256_000))).toBe(256_000);
    // Past the size check, the name is what is wrong.
    expect(await api('POST', '/file', sized(256_000))).toMatchObject({
      status: 400,
      body: { error: 'file_name must be 1 to 255 characters' },
    });
  });

  test('text arrives as sent: a name with a surrogate pair is stored as the character', async () => {
    // Bytes that are not UTF-8 and half pairs: body-rules.test.ts. A whole pair, escaped or not, is a
    // character like any other.
    const { file } = await register('\ud83c\udfac \u00e9.mp4');
    expect(file.file_name).toBe('🎬 é.mp4');
    const escaped = await stack.gateway.app.inject({
      method: 'POST',
      url: '/file',
      headers: { authorization: auth },
      payload: '{"file_name":"\\ud83c\\udfac2.mp4"}',
    });
    expect(escaped.statusCode).toBe(200);
    expect(escaped.json().file.file_name).toBe('🎬2.mp4');
  });

  test('another account sees 404 for all of it', async () => {
    const { file, upload } = await register('mine.png');
    await put(upload, PNG);
    const paths: [string, string, unknown?][] = [
      ['GET', `/directory/${file.dir_id}`],
      ['GET', `/file/${file.file_path}`],
      ['GET', `/file/download/${file.file_path}`],
      ['DELETE', `/file/${file.file_path}`],
      ['POST', '/file', { file_name: 'x.png', dir_id: file.dir_id }],
    ];
    for (const [method, url, body] of paths) {
      const res = await other(method as 'GET', url, body);
      expect({ url, status: res.status }).toEqual({ url, status: 404 });
    }
    expect((await other('GET', '/directory')).body.directories.map((d: { id: string }) => d.id)).not.toContain(file.dir_id);
    expect((await api('GET', `/file/${file.file_path}`)).status).toBe(200);
  });
});

describe('expiry', () => {
  test('a directory with ttl=2 answers 404 everywhere once expired, then is swept with its blobs', async () => {
    const events: string[] = [];
    const sub = await subscribeEvent(stack.bus, Events.directoryExpired, async (e) => void events.push(e.dirId));
    const dir = (await api('POST', '/directory', { ttl: 2 })).body.directory.id as string;
    const { file, upload } = await register('soon.png', dir);
    await put(upload, PNG);
    const storage = createServiceClient(StorageService, stack.urls.storage, { interceptors: stack.callAs('jobs') });
    const accountId = (await api('GET', '/account')).body.account_id as string;
    const { localPath, blobKey } = await storage.client.resolveFile({ file: { accountId, dirId: dir, fileName: 'soon.png' } });
    storage.close();
    // On S3 there is no local path: the blob is looked up in the bucket instead.
    const s3 = stack.adapters === 'networked' ? stack.networked!.s3! : undefined;
    if (s3) expect(await s3.listKeys()).toContain(blobKey);
    else expect(localPath && existsSync(localPath)).toBe(true);
    const dl = (await api('GET', `/file/download/${file.file_path}`)).body.download.url as string;
    expect((await fetch(dl)).status).toBe(200);
    // Once its 2 s are over (not a fixed 3 s: the 404s are the events waited for). The signed URL
    // expires with it, at the signature's whole-second resolution on S3: it may come a moment later.
    await waitFor('the directory to expire', async () => (await api('GET', `/directory/${dir}`)).status === 404);
    await waitFor('the download URL to expire', async () => (await fetch(dl)).status === 404);
    expect(await api('GET', `/directory/${dir}`)).toMatchObject({ status: 404, body: { error: 'Directory not found' } });
    expect((await api('GET', `/file/${file.file_path}`)).status).toBe(404);
    expect((await api('GET', `/file/download/${file.file_path}`)).status).toBe(404);
    expect((await api('DELETE', `/file/${file.file_path}`)).status).toBe(404);
    expect((await api('POST', '/file', { file_name: 'late.png', dir_id: dir })).status).toBe(404);
    expect((await fetch(dl)).status).toBe(404);
    expect((await api('GET', '/directory')).body.directories.map((d: { id: string }) => d.id)).not.toContain(dir);
    // The sweeper (every 1 s here) deletes it and says so once.
    for (let i = 0; i < 50 && !events.includes(dir); i++) await sleep(100);
    expect(events.filter((d) => d === dir)).toHaveLength(1);
    if (s3) expect(await s3.listKeys()).not.toContain(blobKey);
    else expect(existsSync(localPath!)).toBe(false);
    await sub.stop();
  });
});
