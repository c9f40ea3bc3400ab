// S3 down and back, with the service running on networked infrastructure: the gateway answers
// 503 (spec shape, Retry-After), then without calling S3 while Storage's S3 breaker is open,
// and serves again by itself once S3 is back. Async jobs caught by the outage wait it out:
// every accepted job completes, charged once.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PNG } from './helpers.js';
import { makeMp4 } from './media-fixtures.js';
import {
  breakerReads,
  eventually,
  expectAllCompletedAndChargedOnce,
  resetCanary,
  startFaultStack,
  thumbnail,
  timed,
  UNAVAILABLE,
  upload,
  type FaultStack,
} from './faults-helpers.js';

let f: FaultStack;
let fixtures: string;
let mp4: Buffer;

beforeAll(async () => {
  fixtures = await mkdtemp(join(tmpdir(), 'faults-s3-'));
  [mp4, f] = await Promise.all([makeMp4(fixtures, 'small.mp4', 1), startFaultStack()]);
}, 60_000);
afterAll(async () => {
  await f?.close();
  await rm(fixtures, { recursive: true, force: true });
});

const expect503 = (res: { status: number; body: unknown; headers: Record<string, unknown> }) => {
  expect({ status: res.status, body: res.body, retryAfter: res.headers['retry-after'] }).toEqual({
    status: 503,
    body: UNAVAILABLE,
    retryAfter: '5',
  });
};

test('S3 down: 503 with Retry-After, then without calling S3 (breaker open); back by itself after restart', async () => {
  const { api, s3 } = f;
  const ready = await upload(api, 'ready.png', PNG);
  // Uploaded straight to S3 but not yet seen by Storage: the next read asks S3 (HEAD).
  const reg = (await api('POST', '/file', { file_name: 'fresh.png', dir_id: ready.dirId })).body;
  expect((await fetch(reg.upload.url, { method: 'PUT', headers: reg.upload.headers, body: PNG })).status).toBe(200);
  const timings: Record<string, number> = {};

  await s3.restart(async () => {
    // Where S3 listened, a loopback canary now resets every connection: it counts the calls to S3.
    const canary = await resetCanary(Number(new URL(s3.endpoint).port));
    try {
      const first = await timed(() => api('GET', `/file/download/${reg.file.file_path}`));
      expect503(first.res);
      timings.firstDownload = first.ms;
      expect(canary.connections).toBeGreaterThan(0);
      // The breaker opens after 3 failures in a row; from then on the answer comes without a call to S3.
      for (let i = 0; i < 3; i++) expect503(await api('GET', `/file/download/${reg.file.file_path}`));
      const callsBefore = canary.connections;
      const open = await timed(() => api('GET', `/file/download/${reg.file.file_path}`));
      expect503(open.res);
      timings.openDownload = open.ms;
      // While S3 is known to be down (only then: registering needs no S3 call), no presigned URL
      // that cannot work is handed out.
      const post = await timed(() => api('POST', '/file', { file_name: 'new.png', dir_id: ready.dirId }));
      expect503(post.res);
      timings.openPostFile = post.ms;
      expect503(await api('GET', `/file/download/${ready.filePath}`));
      // A sync task cannot read its input: 503 too, and nothing is charged.
      expect503(await api('POST', '/ffmpeg/process', thumbnail(ready.filePath, 'sync.png')));
      expect(canary.connections).toBe(callsBefore);
      // Requests that do not need S3 are still served.
      expect((await api('GET', `/directory/${ready.dirId}`)).status).toBe(200);
      expect((await api('GET', '/account')).status).toBe(200);
    } finally {
      await canary.close();
    }
  });

  // Back without restarting anything: the breaker half-opens, a trial call succeeds, it closes.
  const back = await eventually(
    () => api('GET', `/file/download/${reg.file.file_path}`),
    (r) => r.status === 200,
  );
  timings.recoveredAfter = back.ms;
  expect(back.res.body.download.file_size).toBe(PNG.length);
  expect((await fetch(back.res.body.download.url)).status).toBe(200);
  const post = await api('POST', '/file', { file_name: 'new.png', dir_id: ready.dirId });
  expect(post.status).toBe(200);
  expect((await fetch(post.body.upload.url, { method: 'PUT', headers: post.body.upload.headers, body: PNG })).status).toBe(200);
  expect((await api('GET', `/file/download/${post.body.file.file_path}`)).status).toBe(200);
  console.log(
    `S3 down: first 503 after ${timings.firstDownload} ms; breaker open: GET /file/download ${timings.openDownload} ms, POST /file ${timings.openPostFile} ms; served again ${timings.recoveredAfter} ms after restart`,
  );
}, 60_000);

test('S3 stopped and restarted mid-run: every accepted async job completes, charged once', async () => {
  const { api, s3 } = f;
  const input = await upload(api, 'in.mp4', mp4);
  const submit = async (n: number) => {
    const res = await api('POST', '/ffmpeg/process/async', thumbnail(input.filePath, `t${n}.png`));
    expect(res.status).toBe(202);
    return res.body.job_id as string;
  };
  const jobIds = [await submit(0), await submit(1), await submit(2), await submit(3)];
  await breakerReads('s3', 'closed'); // an open one would end the hold below at once
  await s3.restart(async () => {
    // Accepted while S3 is down (the input's record is in MongoDB); they wait for S3.
    jobIds.push(await submit(4), await submit(5));
    // Held until the services have met the outage (their s3 breaker opened), not for a set time.
    await breakerReads('s3', 'open');
    const states = await Promise.all(jobIds.map(async (id) => (await api('GET', `/job/${id}`)).body.status));
    expect(states.every((s) => s === 'pending' || s === 'processing' || s === 'completed')).toBe(true);
    expect(states.filter((s) => s !== 'completed').length).toBeGreaterThan(0);
  });
  await expectAllCompletedAndChargedOnce(f, jobIds, input.filePath);
}, 60_000);
