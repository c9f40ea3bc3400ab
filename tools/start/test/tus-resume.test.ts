// Issue 44 against `npm start`, as users run it: a 300 MB resumable (tus) upload whose process
// dies at about 60 % (its connection closes mid-body) is resumed by a second process and ends
// byte-identical and listed; an upload cut before the service is killed resumes once it is back
// on the same data; a size past 5 GB gets the spec's sentence; the URL stays single-use.
import { createHash, randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { freePorts, runTusUpload, spawnStack, type Spawned } from '@media/testkit';

const SIZE = 300 * 1024 * 1024;
const CHUNK = 1 << 20;

let stack: Spawned;
let env: Record<string, string>;
let scratch: string;
let file: string;
let fileSha: string;
let authorization: string;

/** 300 MB of random bytes on disk (every 1 MB block differs), and their sha256. */
async function makeFile(path: string): Promise<string> {
  const hash = createHash('sha256');
  const block = randomBytes(CHUNK);
  let written = 0;
  const source = new Readable({
    read() {
      if (written >= SIZE) return void this.push(null);
      block.writeUInt32LE(written / CHUNK, 0);
      const chunk = Buffer.from(block);
      written += chunk.length;
      hash.update(chunk);
      this.push(chunk);
    },
  });
  await pipeline(source, createWriteStream(path));
  return hash.digest('hex');
}

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'tus-start-'));
  file = join(scratch, 'big.bin');
  fileSha = await makeFile(file);
  // A fixed Storage port: the signed URL names it, and a restarted service must answer it again.
  const [storagePort] = await freePorts(1);
  env = { STORAGE_HTTP_PORT: String(storagePort) };
  stack = await spawnStack(env);
  const { account_id } = await stack.admin('account', 'create');
  ({ authorization } = (await stack.admin('key', 'create', '--account', String(account_id), '--name', 'tus')) as { authorization: string });
}, 120_000);
afterAll(async () => {
  await stack?.stop();
  await rm(scratch, { recursive: true, force: true });
});

async function api(method: string, path: string, body?: unknown) {
  const res = await fetch(`${stack.baseUrl}${path}`, {
    method,
    headers: { authorization, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

async function register(fileName: string) {
  const reg = await api('POST', '/file', { file_name: fileName });
  expect(reg.status).toBe(200);
  return { url: reg.body.upload.url as string, dirId: reg.body.file.dir_id as string };
}

/** What GET /directory lists, and the sha256 of what the download URL serves. */
async function stored(dirId: string, name: string) {
  const listed = (await api('GET', `/directory/${dirId}`)).body.files.map((f: { file_name: string }) => f.file_name);
  const info = (await api('GET', `/file/${dirId}/${name}`)).body.file_info;
  const download = (await api('GET', `/file/download/${dirId}/${name}`)).body.download;
  const hash = createHash('sha256');
  for await (const chunk of (await fetch(download.url)).body as unknown as AsyncIterable<Uint8Array>) hash.update(chunk);
  return { listed, size: info?.file_size as number, sha256: hash.digest('hex') };
}

/** Part files left under DATA_DIR/storage/tus. */
const parts = async () => (await readdir(join(stack.dataDir, 'storage', 'tus')).catch(() => [])).length;

test('300 MB cut at 60 % by its process dying, resumed by another process: byte-identical, listed', async () => {
  const { url, dirId } = await register('big.bin');
  const first = await runTusUpload(file, url, { cutAt: 0.6 });
  expect(first.ok).toBe(false);
  expect(first.cutAfter).toBeGreaterThanOrEqual(SIZE * 0.6);
  expect((await api('GET', `/directory/${dirId}`)).body.files).toEqual([]);

  const second = await runTusUpload(file, url);
  expect(second).toMatchObject({ ok: true });
  // It went on from what the service kept: not from zero, and not done before it. (The child
  // goes on sending until the kill lands, so the offset may pass cutAfter.)
  expect(second.patchFrom[0]).toBeGreaterThan(SIZE * 0.5);
  expect(second.patchFrom[0]).toBeLessThan(SIZE);

  expect(await stored(dirId, 'big.bin')).toEqual({ listed: ['big.bin'], size: SIZE, sha256: fileSha });
  expect(await parts()).toBe(0);
  // Single use: the plain PUT on the spent URL is refused.
  expect((await fetch(url, { method: 'PUT', body: 'again' })).status).toBe(409);
}, 180_000);

test('an upload cut before the service is killed resumes once it is back on the same data', async () => {
  const { url, dirId } = await register('restart.bin');
  const first = await runTusUpload(file, url, { cutAt: 0.4 });
  expect(first.ok).toBe(false);

  await stack.kill();
  stack = await spawnStack(env, stack.dataDir);

  const second = await runTusUpload(file, url);
  expect(second).toMatchObject({ ok: true });
  expect(second.patchFrom[0]).toBeGreaterThan(SIZE * 0.3);
  expect(second.patchFrom[0]).toBeLessThan(SIZE);
  expect(await stored(dirId, 'restart.bin')).toEqual({ listed: ['restart.bin'], size: SIZE, sha256: fileSha });
  expect(await parts()).toBe(0);
}, 180_000);

test('a size past 5 GB is refused with the spec sentence; nothing is created', async () => {
  const { url, dirId } = await register('huge.mov');
  const res = await fetch(url, { method: 'POST', headers: { 'Tus-Resumable': '1.0.0', 'Upload-Length': String(5e9 + 1) } });
  expect(res.status).toBe(403);
  expect(await res.text()).toBe("File 'huge.mov' size (5000.00 MB) exceeds max file size limit of 5 GB.");
  expect(await parts()).toBe(0);
  // The URL is not spent: the plain PUT still works.
  expect((await fetch(url, { method: 'PUT', body: 'small' })).status).toBe(200);
  expect((await api('GET', `/directory/${dirId}`)).body.files.map((f: { file_name: string }) => f.file_name)).toEqual(['huge.mov']);
});
