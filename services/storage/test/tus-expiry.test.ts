// How long a resumable upload lives (local disk, Storage on its own, its clock moved by the test):
// the URL starts uploads within its 5 minutes; an upload that keeps moving outlives it and is
// kept 5 minutes after its last PATCH; one left idle that long answers 403 and its parts are
// swept; a PATCH still open is never swept under its writer. Also: a HEAD on a stored file says
// it is complete; GET is no use of an upload URL; UPLOAD_CORS_ORIGINS names the pages that may
// upload; stray part files are swept.
import { once } from 'node:events';
import { readdir, stat, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { join } from 'node:path';
import { loadConfig } from '@media/platform';
import { waitFor } from '@media/testkit';
import { storageConfigSpec } from '../src/index.js';
import { storageAlone } from './storage-alone.js';

const accountId = 'acc_tus_expiry';
const MIN = 60_000;
const tus = { 'Tus-Resumable': '1.0.0' };
const offsetType = { 'Content-Type': 'application/offset+octet-stream' };

const alone = storageAlone('storage-tus-expiry-', { base: () => ({ SWEEP_INTERVAL_SEC: '1' }) });
beforeEach(() => {
  alone.shiftMs = 0;
});

const partsDir = () => join(alone.dataDir, 'storage', 'tus');
const parts = async () => (await readdir(partsDir()).catch(() => [] as string[])).sort();
const idOf = (url: string) => Buffer.from(decodeURIComponent(new URL(url).pathname.slice('/blob/'.length))).toString('base64url');
const patch = (url: string, offset: number, body: string) =>
  fetch(url, { method: 'PATCH', headers: { ...tus, ...offsetType, 'Upload-Offset': String(offset) }, body });

async function register(fileName: string) {
  const client = await alone.client();
  const { file, upload } = await client.registerFile({ accountId, fileName });
  return { client, url: upload!.url, dirId: file!.dirId };
}

test('an upload that keeps moving outlives its URL; left idle 5 minutes, it answers 403 and is swept', async () => {
  const { client, url, dirId } = await register('moving.bin');
  expect((await fetch(url, { method: 'POST', headers: { ...tus, 'Upload-Length': '30' } })).status).toBe(201);
  expect((await patch(url, 0, 'aaaaaaaaaa')).status).toBe(204);
  alone.shiftMs = 4 * MIN;
  const second = await patch(url, 10, 'bbbbbbbbbb');
  expect(second.status).toBe(204);
  // Kept 5 minutes after this PATCH, past the URL's own 5 minutes.
  expect(Date.parse(second.headers.get('upload-expires')!)).toBeGreaterThanOrEqual(Date.now() + 9 * MIN - 5_000);

  alone.shiftMs = 8 * MIN; // the URL expired 3 minutes ago; the upload moved 4 minutes ago
  const head = await fetch(url, { method: 'HEAD', headers: tus });
  expect([head.status, head.headers.get('upload-offset')]).toEqual([200, '20']);
  expect((await patch(url, 20, 'cccccccccc')).status).toBe(204);
  expect((await client.listFiles({ accountId, dirId })).files.map((f) => f.fileName)).toEqual(['moving.bin']);

  // Another, left idle: 5 minutes after its last PATCH it is refused, then swept.
  alone.shiftMs = 0;
  const idle = await register('idle.bin');
  expect((await fetch(idle.url, { method: 'POST', headers: { ...tus, 'Upload-Length': '30' } })).status).toBe(201);
  expect((await patch(idle.url, 0, 'aaaaaaaaaa')).status).toBe(204);
  alone.shiftMs = 6 * MIN;
  const late = await fetch(idle.url, { method: 'HEAD', headers: tus });
  expect(late.status).toBe(403);
  const refused = await patch(idle.url, 10, 'bbbbbbbbbb');
  expect([refused.status, await refused.text()]).toEqual([403, 'This URL has expired.']);
  await waitFor('the idle upload swept', async () => !(await parts()).some((n) => n.startsWith(idOf(idle.url))));
}, 30_000);

test('only bytes renew: an empty PATCH does not keep an upload', async () => {
  const { url } = await register('empty.bin');
  expect((await fetch(url, { method: 'POST', headers: { ...tus, 'Upload-Length': '30' } })).status).toBe(201);
  expect((await patch(url, 0, 'aaaaaaaaaa')).status).toBe(204);
  alone.shiftMs = 4 * MIN;
  expect((await patch(url, 10, '')).status).toBe(204);
  alone.shiftMs = 6 * MIN; // 6 minutes after the last bytes, 2 after the empty PATCH
  const late = await patch(url, 10, 'bbbbbbbbbb');
  expect([late.status, await late.text()]).toEqual([403, 'This URL has expired.']);
});

test('HEAD while a plain PUT stores the file: 423 with Retry-After; a claim 15 minutes old gets the usual answers', async () => {
  const { url } = await register('storing.bin');
  const target = new URL(url);
  const socket = connect(Number(target.port), target.hostname);
  await once(socket, 'connect');
  socket.write(`PUT ${target.pathname}${target.search} HTTP/1.1\r\nHost: ${target.host}\r\nContent-Length: 20\r\n\r\n0123456789`);
  const head = await waitFor('the PUT claimed', async () => {
    const res = await fetch(url, { method: 'HEAD', headers: tus });
    return res.status === 423 ? res : undefined;
  });
  expect(head.headers.get('retry-after')).toBe('1');
  alone.shiftMs = 16 * MIN;
  const stale = await fetch(url, { method: 'HEAD', headers: tus });
  expect(stale.status).toBe(403); // the URL's expiry, as for any request past it with no upload
  socket.destroy();
});

test('HEAD on a stored file whose directory expired: 404, not complete', async () => {
  const { url } = await register('gone-dir.bin');
  expect((await fetch(url, { method: 'PUT', body: 'bytes' })).status).toBe(200);
  alone.shiftMs = 25 * 60 * MIN; // past the directory's default day
  const head = await fetch(url, { method: 'HEAD', headers: tus });
  expect(head.status).toBe(404);
});

test('an expired URL creates no upload, and takes no plain PUT', async () => {
  const { url } = await register('late.bin');
  alone.shiftMs = 6 * MIN;
  const created = await fetch(url, { method: 'POST', headers: { ...tus, 'Upload-Length': '5' } });
  expect([created.status, await created.text()]).toEqual([403, 'This URL has expired.']);
  expect((await fetch(url, { method: 'HEAD', headers: tus })).status).toBe(403);
  const put = await fetch(url, { method: 'PUT', body: 'late' });
  expect([put.status, await put.json()]).toEqual([403, { ok: false, error: 'This URL has expired.' }]);
  expect((await parts()).filter((n) => n.startsWith(idOf(url)))).toEqual([]);
});

test('a PATCH still open is not swept under its writer, and completes once its body is in', async () => {
  const { client, url, dirId } = await register('slow.bin');
  expect((await fetch(url, { method: 'POST', headers: { ...tus, 'Upload-Length': '20' } })).status).toBe(201);
  // A PATCH whose body comes in two halves, the socket held open in between.
  const target = new URL(url);
  const socket = connect(Number(target.port), target.hostname);
  await once(socket, 'connect');
  socket.write(
    `PATCH ${target.pathname}${target.search} HTTP/1.1\r\nHost: ${target.host}\r\nTus-Resumable: 1.0.0\r\n` +
      'Upload-Offset: 0\r\nContent-Type: application/offset+octet-stream\r\nContent-Length: 20\r\nConnection: close\r\n\r\n0123456789',
  );
  // Watched on disk: a HEAD would take the upload's lock, which ends the PATCH (tus lets a
  // resuming client preempt a stale request).
  const part = join(partsDir(), idOf(url));
  await waitFor('the first half written', async () => (await stat(part)).size === 10);
  // Long past every expiry; a canary upload, abandoned, shows that sweeps have run.
  const canary = await register('canary.bin');
  expect((await fetch(canary.url, { method: 'POST', headers: { ...tus, 'Upload-Length': '5' } })).status).toBe(201);
  alone.shiftMs = 30 * MIN;
  await waitFor('the canary swept', async () => !(await parts()).some((n) => n.startsWith(idOf(canary.url))));
  expect((await parts()).filter((n) => n.startsWith(idOf(url)))).toHaveLength(2);

  const answer = new Promise<string>((resolve) => {
    let text = '';
    socket.on('data', (d) => (text += String(d)));
    socket.on('close', () => resolve(text));
  });
  socket.write('abcdefghij');
  expect(await answer).toMatch(/^HTTP\/1\.1 204 /);
  expect((await client.listFiles({ accountId, dirId })).files.map((f) => f.fileName)).toEqual(['slow.bin']);
}, 30_000);

test('HEAD on a stored file: complete; GET is refused; the file stays single-use', async () => {
  const { url } = await register('done.bin');
  expect((await fetch(url, { method: 'PUT', body: 'plain bytes' })).status).toBe(200);
  const head = await fetch(url, { method: 'HEAD', headers: tus });
  expect([head.status, head.headers.get('upload-offset'), head.headers.get('upload-length')]).toEqual([200, '11', '11']);
  const get = await fetch(url, { headers: tus });
  expect([get.status, await get.text()]).toEqual([403, 'This URL does not allow GET requests.']);
  const again = await patch(url, 11, 'more');
  expect(again.status).toBe(409);
});

test('UPLOAD_CORS_ORIGINS names the pages that may upload; a bad entry stops the start with a sentence', async () => {
  await alone.stop();
  await alone.start('0', { UPLOAD_CORS_ORIGINS: 'https://app.example.com, https://console.example.com' });
  const { url } = await register('cors.bin');
  const preflight = (origin: string) =>
    fetch(url, {
      method: 'OPTIONS',
      headers: { origin, 'access-control-request-method': 'PATCH', 'access-control-request-headers': 'tus-resumable' },
    });
  expect((await preflight('https://app.example.com')).headers.get('access-control-allow-origin')).toBe('https://app.example.com');
  expect((await preflight('https://elsewhere.example')).headers.get('access-control-allow-origin')).not.toBe('https://elsewhere.example');
  await alone.stop();
  expect(() => loadConfig(storageConfigSpec, { DATA_DIR: alone.dataDir, UPLOAD_CORS_ORIGINS: 'https://app.example.com/page' })).toThrow(
    'UPLOAD_CORS_ORIGINS: https://app.example.com/page is not an origin; give scheme, host and port only, e.g. https://app.example.com',
  );
});

test('stray part files (a record without its part, a part without its record) are swept', async () => {
  await alone.client();
  await writeFile(join(partsDir(), `${Buffer.from('acc_x/dir_y/f_gone').toString('base64url')}.json`), '{}');
  await writeFile(join(partsDir(), Buffer.from('acc_x/dir_y/f_other').toString('base64url')), '');
  await waitFor('the stray files swept', async () => (await parts()).length === 0);
});
