// The account's state on every upload request (issue 44): a signed upload URL lives 5 minutes,
// and an account suspended within them may not go on uploading. A tus upload's next PATCH is
// refused with the spec's 403 and sentence, nothing more is stored, its parts stay; re-activated,
// it resumes to a byte-identical, listed file. A plain PUT is refused before any byte. Storage
// hears of a change through Auth's event: its cache of statuses lasts 60 s here, so only the event
// can make the refusal come within the tests' deadlines. With Auth unreachable, uploads are 503.
// On TEST_ADAPTERS=networked the event goes over NATS and the files live in MongoDB; the blobs
// stay on local disk (the upload URL on S3 is a presigned S3 PUT that Storage does not see).
import { createHash, randomBytes } from 'node:crypto';
import { request, type ClientRequest } from 'node:http';
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { AccountStatus } from '@media/proto/media/auth/v1/auth_pb.js';
import type { ServiceName } from '@media/stack';
import { startTestStack, type TestStack } from '@media/stack/testing';
import { settlesWithin, startTcpProxy, waitFor, type TcpProxy } from '@media/testkit';
import { cutUpload, firstPatchOffset, runUpload } from './tus-client.js';

const SUSPENDED = 'This account is suspended. Contact help@media.test.';
const UNAVAILABLE = 'A backing service is unavailable. Retry shortly.';
const TUS = { 'Tus-Resumable': '1.0.0' };
/** Blobs on local disk on either adapter set (see the header). */
const LOCAL_DISK = {
  S3_ENDPOINT: '',
  S3_BUCKET: '',
  S3_REGION: '',
  S3_ACCESS_KEY_ID: '',
  S3_SECRET_ACCESS_KEY: '',
  S3_FORCE_PATH_STYLE: '',
};

let stack: TestStack;
/** Between Storage and Auth: a test takes Auth away from Storage alone. */
let authProxy: TcpProxy | undefined;

beforeAll(async () => {
  const route = async (from: ServiceName, to: ServiceName, url: string) => {
    if (from !== 'storage' || to !== 'auth') return url;
    const { hostname, port } = new URL(url);
    authProxy = await startTcpProxy(hostname, Number(port));
    return `http://127.0.0.1:${authProxy.port}`;
  };
  stack = await startTestStack({ ...LOCAL_DISK, ACCOUNT_STATUS_CACHE_SEC: '60', SUPPORT_CONTACT: 'help@media.test' }, { route });
}, 60_000);
afterAll(async () => {
  await stack?.close();
  await authProxy?.close();
});

async function account() {
  const { accountId, authorization } = await stack.newAccount();
  const api = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${stack.gatewayUrl}${path}`, {
      method,
      headers: { authorization, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Record<string, any> };
  };
  const register = async (fileName: string, dirId?: string) => {
    const reg = await api('POST', '/file', { file_name: fileName, ...(dirId ? { dir_id: dirId } : {}) });
    expect(reg.status).toBe(200);
    return { url: reg.body.upload.url as string, dirId: reg.body.file.dir_id as string };
  };
  const setStatus = (status: AccountStatus) => stack.admin.setAccountStatus({ accountId, status });
  return { api, register, setStatus };
}

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/** An empty PATCH at the upload's offset: appends nothing, answers what Storage makes of the account now. */
async function emptyPatch(url: string, offset: number): Promise<{ status: number; body: string }> {
  const res = await fetch(url, {
    method: 'PATCH',
    headers: { ...TUS, 'Upload-Offset': String(offset), 'Content-Type': 'application/offset+octet-stream' },
    body: '',
  });
  return { status: res.status, body: await res.text() };
}

async function offsetOf(url: string): Promise<number> {
  const res = await fetch(url, { method: 'HEAD', headers: TUS });
  expect(res.status).toBe(200);
  return Number(res.headers.get('upload-offset'));
}

/** Waits (deadline 10 s, far below the 60 s cache) until Storage answers the probe upload `status`: it heard the event. */
async function storageSees(probeUrl: string, status: 403 | 204): Promise<void> {
  await waitFor(`Storage to answer ${status} after the status change`, async () => (await emptyPatch(probeUrl, 0)).status === status);
}

/** A tus upload created (no bytes yet) to probe Storage's view of the account; caches it as active. */
async function probeUpload(register: (name: string) => Promise<{ url: string; dirId: string }>): Promise<{ url: string; dirId: string }> {
  const probe = await register('probe.bin');
  const created = await fetch(probe.url, { method: 'POST', headers: { ...TUS, 'Upload-Length': '1' } });
  expect(created.status).toBe(201);
  expect((await emptyPatch(probe.url, 0)).status).toBe(204);
  return probe;
}

/** The part files of the upload on `url` (named by its id: the blob key, base64url). */
async function partsOf(url: string): Promise<string[]> {
  const id = Buffer.from(decodeURIComponent(new URL(url).pathname.slice('/blob/'.length))).toString('base64url');
  return (await readdir(join(stack.dataDir, 'storage', 'tus'))).filter((n) => n.startsWith(id)).sort();
}

/** A PUT that declares `size` bytes and sends none: the answer, which must come before any byte (deadline 10 s). */
async function putWithoutBody(url: string, size: number): Promise<{ status: number; retryAfter?: string; body: string }> {
  let sent: ClientRequest | undefined;
  const answered = new Promise<{ status: number; retryAfter?: string; body: string }>((resolve, reject) => {
    const req = request(url, { method: 'PUT', headers: { 'content-length': String(size) } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => {
        req.destroy();
        resolve({ status: res.statusCode ?? 0, body, ...(res.headers['retry-after'] ? { retryAfter: res.headers['retry-after'] } : {}) });
      });
    });
    req.on('error', reject);
    req.flushHeaders();
    sent = req;
  });
  try {
    return await settlesWithin('an answer to a PUT that has sent no byte', answered, 10_000);
  } finally {
    sent?.destroy();
  }
}

test('suspended mid-upload: the next tus PATCH is 403 with the spec sentence, nothing stored; re-activated, it resumes', async () => {
  const { api, register, setStatus } = await account();
  const { url: probe, dirId } = await probeUpload(register);
  const data = randomBytes(8 * 1024 * 1024);
  const { url } = await register('movie.bin', dirId);
  const notCreated = (await register('later.bin', dirId)).url;
  // Under way: 40 % in, in parts of 1 MB (the account's status is now remembered as active).
  await cutUpload(data, { endpoint: url, uploadUrl: url, chunkSize: 1024 * 1024 }, 0.4);
  const stored = await offsetOf(url);
  expect(stored).toBeGreaterThan(0);

  await setStatus(AccountStatus.SUSPENDED);
  await storageSees(probe, 403);

  // The client goes on: its next PATCH is refused with the API's answer to a suspended account.
  const refused = await runUpload(data, { uploadUrl: url, chunkSize: 1024 * 1024 });
  expect(refused.ok).toBe(false);
  const response = !refused.ok ? refused.err.originalResponse : null;
  expect(response?.getStatus()).toBe(403);
  expect(response?.getBody()).toBe(SUSPENDED);
  // Nothing more was stored, and what was in stays (until the URL expires: the sweep's business).
  expect(await offsetOf(url)).toBe(stored);
  expect((await partsOf(url)).length).toBeGreaterThan(0);
  // Creating an upload on a URL handed out before is refused too.
  const created = await fetch(notCreated, { method: 'POST', headers: { ...TUS, 'Upload-Length': '10' } });
  expect({ status: created.status, body: await created.text() }).toEqual({ status: 403, body: SUSPENDED });
  expect(await partsOf(notCreated)).toEqual([]);

  await setStatus(AccountStatus.ACTIVE);
  await storageSees(probe, 204);
  const resumed = firstPatchOffset();
  expect(await runUpload(data, { uploadUrl: url, chunkSize: 1024 * 1024, ...resumed.options })).toEqual({ ok: true, url });
  expect(resumed.offset()).toBe(stored);

  const listed = await api('GET', `/directory/${dirId}`);
  expect(listed.body.files.map((f: { file_name: string }) => f.file_name).sort()).toEqual(['movie.bin']);
  const download = await api('GET', `/file/download/${dirId}/movie.bin`);
  expect(sha256(Buffer.from(await (await fetch(download.body.download.url)).arrayBuffer()))).toBe(sha256(data));
}, 60_000);

test('suspended while the last part streams in: completion is refused; re-activated, a HEAD completes the file', async () => {
  const { api, register, setStatus } = await account();
  const { url: probe, dirId } = await probeUpload(register);
  const { url } = await register('last.bin', dirId);
  const data = randomBytes(256 * 1024);
  const tusHeaders = { ...TUS, 'Upload-Length': String(data.length) };
  expect((await fetch(url, { method: 'POST', headers: tusHeaders })).status).toBe(201);

  // One PATCH with the whole file: admitted (active), half sent, then the account is suspended.
  const patch = request(url, {
    method: 'PATCH',
    headers: { ...TUS, 'Upload-Offset': '0', 'Content-Type': 'application/offset+octet-stream', 'Content-Length': String(data.length) },
  });
  const answer = new Promise<{ status: number; body: string }>((resolve, reject) => {
    patch.on('response', (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    patch.on('error', reject);
  });
  patch.write(data.subarray(0, data.length / 2));
  // Admitted: its bytes reach the part file.
  const partFile = join(stack.dataDir, 'storage', 'tus', (await partsOf(url)).find((n) => !n.endsWith('.json'))!);
  await waitFor('the PATCH to be admitted (bytes in the part file)', async () => (await stat(partFile)).size > 0);
  await setStatus(AccountStatus.SUSPENDED);
  await storageSees(probe, 403);
  patch.end(data.subarray(data.length / 2));
  expect(await settlesWithin('the last PATCH to be answered', answer, 10_000)).toEqual({ status: 403, body: SUSPENDED });
  // Every byte is in, the file is not stored: a HEAD (which would complete it) is refused as well.
  expect((await fetch(url, { method: 'HEAD', headers: TUS })).status).toBe(403);

  await setStatus(AccountStatus.ACTIVE);
  await storageSees(probe, 204);
  // The client's next HEAD completes it: all bytes there, the file stored and listed.
  expect(await offsetOf(url)).toBe(data.length);
  const listed = await api('GET', `/directory/${dirId}`);
  expect(listed.body.files.map((f: { file_name: string }) => f.file_name)).toEqual(['last.bin']);
  const download = await api('GET', `/file/download/${dirId}/last.bin`);
  expect(sha256(Buffer.from(await (await fetch(download.body.download.url)).arrayBuffer()))).toBe(sha256(data));
}, 60_000);

test('suspended: a plain PUT is refused before any byte; re-activated, the same URL takes the file', async () => {
  const { api, register, setStatus } = await account();
  const { url: probe, dirId } = await probeUpload(register);
  const { url } = await register('clip.bin', dirId);

  await setStatus(AccountStatus.SUSPENDED);
  await storageSees(probe, 403);
  // The answer comes with no byte of the body sent.
  expect(await putWithoutBody(url, 1024 * 1024)).toEqual({ status: 403, body: JSON.stringify({ ok: false, error: SUSPENDED }) });

  await setStatus(AccountStatus.ACTIVE);
  await storageSees(probe, 204);
  const body = randomBytes(64 * 1024);
  expect((await fetch(url, { method: 'PUT', body })).status).toBe(200);
  const info = await api('GET', `/file/${dirId}/clip.bin`);
  expect(info.body.file_info.file_size).toBe(body.length);
}, 30_000);

test('a payment failed mid-upload: the PATCH gets that status sentence', async () => {
  const { register, setStatus } = await account();
  const { url: probe } = await probeUpload(register);
  await setStatus(AccountStatus.PAYMENT_FAILED);
  await storageSees(probe, 403);
  const answer = await emptyPatch(probe, 0);
  expect(answer.body).toMatch(/^A payment failed\. Pay the open invoice at \S+ to resume\.$/);
});

test('Auth unreachable: uploads are refused 503 with Retry-After (fail closed), and go on once it is back', async () => {
  // A new account: nothing remembered of it, Storage must ask Auth.
  const { register } = await account();
  const { url } = await register('late.bin');
  const tusUrl = (await register('late-tus.bin')).url;
  await authProxy!.refuse();
  try {
    expect(await putWithoutBody(url, 10)).toEqual({
      status: 503,
      retryAfter: '5',
      body: JSON.stringify({ ok: false, error: UNAVAILABLE }),
    });
    const created = await fetch(tusUrl, { method: 'POST', headers: { ...TUS, 'Upload-Length': '10' } });
    expect(created.status).toBe(503);
    expect(created.headers.get('retry-after')).toBe('5');
    expect(await created.text()).toBe(UNAVAILABLE);
    expect(await partsOf(tusUrl)).toEqual([]);
  } finally {
    await authProxy!.restore();
  }
  // Back: the same URL takes the upload (the client's breaker lets a call through within seconds).
  await waitFor(
    'the upload to be taken once Auth is back',
    async () => (await fetch(url, { method: 'PUT', body: 'late' })).status === 200,
    30_000,
  );
}, 60_000);
