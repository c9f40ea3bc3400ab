// A small disk that fills (DATA_DIR on a tmpfs of the service's own): below DISK_RESERVE_MB
// uploads, URL-less and URL jobs answer 503 with Retry-After and nothing is charged; with no
// reserve, a disk filled to ENOSPC answers the same 503 (the service's fault, not the client's);
// either way, once space is freed everything works again without a restart.
import { randomBytes } from 'node:crypto';
import { readFile, rm, writeFile, open } from 'node:fs/promises';
import { join } from 'node:path';
import { spawnStack, startHttpsServer, tempDir, waitFor, type Spawned } from '@media/testkit';
import { Errors, freeBytes as free } from '@media/platform';
import { accountWithClip, type Call } from './spawned-account.js';

const MiB = 1024 * 1024;
const DISK_FULL = { ok: false, error: Errors.diskFull().message };
let stack: Spawned | undefined;

afterEach(async () => {
  await stack?.stop();
  stack = undefined;
});

/** Writes a filler file until the disk has `leave` bytes free, or none (ENOSPC) when leave is 0. */
async function fill(dir: string, leave: number): Promise<string> {
  const path = join(dir, 'filler');
  const fh = await open(path, 'w');
  try {
    for (const chunk of [MiB, 4096]) {
      const buf = Buffer.alloc(chunk, 1);
      while ((await free(dir)) - chunk >= leave) {
        try {
          await fh.write(buf);
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code === 'ENOSPC') break;
          throw err;
        }
      }
    }
  } finally {
    await fh.close();
  }
  return path;
}

const thumbnail = (dirId: string, name: string) => ({
  task: { inputs: [{ file_path: `${dirId}/clip.mp4` }], outputs: [{ file: name, options: ['-frames:v', '1'] }] },
});

async function expectDiskFull(res: { status: number; body: unknown; headers: Headers }) {
  expect({ status: res.status, body: res.body, retryAfter: res.headers.get('retry-after') }).toEqual({
    status: 503,
    body: DISK_FULL,
    retryAfter: '30',
  });
  expect(res.headers.get('x-request-id')).toBeTruthy();
}

async function charged(call: Call, base: string): Promise<number> {
  return (await call(base, 'GET', '/account/usage?format=json')).body.rows.length;
}

test('below the reserve: uploads, sync and async jobs wait or answer 503; freed space serves them all again', async () => {
  stack = await spawnStack({ DISK_RESERVE_MB: '32', JOB_SCAN_INTERVAL_MS: '200' }, undefined, undefined, { tmpfsBytes: 96 * MiB });
  const base = stack.baseUrl;
  const { call, dirId } = await accountWithClip(stack, 'testsrc=duration=2:size=160x120:rate=10');
  const clip = await readFile(join(stack.dataDir, 'clip.mp4'));
  const later = (await call(base, 'POST', '/file', { file_name: 'later.mp4', dir_id: dirId })).body.upload;
  const before = await charged(call, base);

  const filler = await fill(stack.dataDirHere, 16 * MiB);
  await expectDiskFull(await call(base, 'POST', '/file', { file_name: 'new.mp4', dir_id: dirId }));
  const put = await fetch(later.url, { method: 'PUT', headers: later.headers, body: clip });
  await expectDiskFull({ status: put.status, body: await put.json(), headers: put.headers });
  await expectDiskFull(await call(base, 'POST', '/ffmpeg/process', thumbnail(dirId, 'sync.png')));
  // An async job is accepted and waits for space (it is not lost, nor failed for it).
  const queued = await call(base, 'POST', '/ffmpeg/process/async', thumbnail(dirId, 'async.png'));
  expect(queued.status).toBe(202);
  // The events: staging it met the full disk, and again on its retry 1 s later (a log line each),
  // and it stays pending.
  const spawned = stack;
  const refusal = (line: string) => line.includes(queued.body.job_id) && line.includes('staging met an outage');
  await waitFor('two refused stagings of the async job', () => spawned.logs().split('\n').filter(refusal).length >= 2, 30_000);
  expect((await call(base, 'GET', `/job/${queued.body.job_id}`)).body.status).not.toMatch(/completed|failed/);
  // Reading and deleting still work: they are how space comes back.
  expect((await call(base, 'GET', `/directory/${dirId}`)).status).toBe(200);
  expect(await charged(call, base)).toBe(before);

  await rm(filler);
  const again = await fetch(later.url, { method: 'PUT', headers: later.headers, body: clip }); // the same URL
  expect(again.status).toBe(200);
  expect((await call(base, 'POST', '/ffmpeg/process', thumbnail(dirId, 'sync.png'))).status).toBe(200);
  let job;
  // It tries again 1 s after the first refusal, doubling: within 60 s however long it waited.
  for (let i = 0; i < 300; i++) {
    job = (await call(base, 'GET', `/job/${queued.body.job_id}`)).body;
    if (job.status === 'completed' || job.status === 'failed') break;
    await new Promise((r) => setTimeout(r, 200));
  }
  expect(job?.status).toBe('completed');
  expect(await charged(call, base)).toBe(before + 2);
}, 120_000);

test('no reserve, disk filled to ENOSPC: 503 (not 400 or 500), and every store takes writes again once files are deleted', async () => {
  // A URL input of 8 MiB, served on loopback (allowed and trusted for this test).
  const big = randomBytes(8 * MiB);
  const https = await startHttpsServer({
    host: '127.0.0.2',
    handler: (_req, res) => res.writeHead(200, { 'content-length': big.length }).end(big),
  });
  const certs = await tempDir('disk-pressure-ca-');
  await writeFile(join(certs.path, 'ca.pem'), https.ca);
  try {
    stack = await spawnStack(
      { DISK_RESERVE_MB: '0', URL_ALLOWLIST_CIDRS: '127.0.0.2/32', URL_CA_FILE: join(certs.path, 'ca.pem') },
      undefined,
      undefined,
      { tmpfsBytes: 64 * MiB },
    );
    await diskFilledToEnospc(stack, `${https.url}/big.mp4`);
  } finally {
    await https.stop();
    await certs.remove();
  }
}, 120_000);

async function diskFilledToEnospc(stack: Spawned, bigUrl: string): Promise<void> {
  const base = stack.baseUrl;
  const { call, dirId } = await accountWithClip(stack, 'testsrc=duration=2:size=160x120:rate=10');
  const clip = await readFile(join(stack.dataDir, 'clip.mp4'));
  const later = (await call(base, 'POST', '/file', { file_name: 'later.mp4', dir_id: dirId })).body.upload;

  // 2 MiB left: the URL input's 8 MiB meet the full disk mid-download. Our disk, not the URL's fault.
  let filler = await fill(stack.dataDirHere, 2 * MiB);
  await expectDiskFull(
    await call(base, 'POST', '/ffmpeg/process', { task: { inputs: [{ file_path: bigUrl }], outputs: [{ file: 'x.png' }] } }),
  );
  // ffmpeg's output (about 60 MB of raw 1080p frames) meets it too: not "FFmpeg command failed".
  const raw = {
    task: { inputs: [{ file_path: `${dirId}/clip.mp4` }], outputs: [{ file: 'raw.yuv', options: ['-vf', 'scale=1920:1080'] }] },
  };
  await expectDiskFull(await call(base, 'POST', '/ffmpeg/process', raw));
  await rm(filler);

  filler = await fill(stack.dataDirHere, 0);
  expect(await free(stack.dataDirHere)).toBeLessThan(4096);
  // Records (Storage's directories), blobs (an upload) and a job's work all meet the full disk.
  // A record may still fit in the last page of its log: the first few may be stored.
  let res = await call(base, 'POST', '/directory', {});
  for (let i = 0; i < 100 && res.status === 200; i++) res = await call(base, 'POST', '/directory', {});
  await expectDiskFull(res);
  const put = await fetch(later.url, { method: 'PUT', headers: later.headers, body: clip });
  await expectDiskFull({ status: put.status, body: await put.json(), headers: put.headers });
  await expectDiskFull(await call(base, 'POST', '/ffmpeg/process', thumbnail(dirId, 'sync.png')));

  // The operator (or the expiry sweep) frees space: no restart.
  await writeFile(filler, '');
  await rm(filler);
  const made = await call(base, 'POST', '/directory', {});
  expect(made.status).toBe(200);
  expect((await fetch(later.url, { method: 'PUT', headers: later.headers, body: clip })).status).toBe(200);
  const sync = await call(base, 'POST', '/ffmpeg/process', thumbnail(dirId, 'sync.png'));
  expect(sync.status).toBe(200);
  const files = (await call(base, 'GET', `/directory/${dirId}`)).body.files.map((f: { file_name: string }) => f.file_name).sort();
  expect(files).toEqual(['clip.mp4', 'later.mp4', 'sync.png']);
  expect((await call(base, 'GET', `/directory/${made.body.directory.id}`)).status).toBe(200);
  expect(await charged(call, base)).toBe(1);
}
