// A sync run longer than its admission's lease (ADMISSION_LEASE_SEC, 1 s here) is not taken for
// interrupted: its process renews the lease while it runs, so the job scan (every 100 ms) leaves
// it alone, and it ends completed and charged, its slot free; a renewal that comes late (the
// process stalled past the lease) does not end its own run either.
import { startTestStack, type TestStack } from '@media/stack/testing';
import { waitFor } from '@media/testkit';
import { caller } from './helpers.js';
import { makeMp4 } from './media-fixtures.js';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

let stack: TestStack;
let work: string;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'admission-renewal-'));
  stack = await startTestStack({ ADMISSION_LEASE_SEC: '1', JOB_SCAN_INTERVAL_MS: '100' });
});
afterAll(async () => {
  await stack?.close();
  await rm(work, { recursive: true, force: true });
});

test('a sync run of 3 s with a 1 s lease completes, recorded completed, its admission released', async () => {
  const api = caller(stack, (await stack.newAccount()).authorization);
  const reg = await api('POST', '/file', { file_name: 'clip.mp4' });
  await fetch(reg.body.upload.url, { method: 'PUT', headers: reg.body.upload.headers, body: await makeMp4(work, 'clip.mp4', 3) });
  // -re reads the input at its own pace: the run lasts about the clip's 3 s.
  const res = await api('POST', '/ffmpeg/process', {
    task: { inputs: [{ file_path: reg.body.file.file_path, options: ['-re'] }], outputs: [{ file: 'copy.mkv', options: ['-c', 'copy'] }] },
  });
  expect(res.status).toBe(200);
  expect(res.body.usage.time_sec).toBeGreaterThan(2);
  const job = await api('GET', `/job/${res.body.request_id}`);
  expect(job.body).toMatchObject({ status: 'completed' });
  expect((await api('GET', '/account')).body.jobs.active).toBe(0);
}, 30_000);

test('a process that stalls past the lease does not release the run it is still running', async () => {
  const api = caller(stack, (await stack.newAccount()).authorization);
  const reg = await api('POST', '/file', { file_name: 'clip.mp4' });
  await fetch(reg.body.upload.url, { method: 'PUT', headers: reg.body.upload.headers, body: await makeMp4(work, 'stall.mp4', 3) });
  const answer = api('POST', '/ffmpeg/process', {
    task: { inputs: [{ file_path: reg.body.file.file_path, options: ['-re'] }], outputs: [{ file: 'copy.mkv', options: ['-c', 'copy'] }] },
  });
  await waitFor('the run admitted', async () => (await api('GET', '/account')).body.jobs.active === 1, 10_000);
  // The whole process (the stack runs in it) stops for 1.5 s: the lease lapses before its renewal
  // can run, and the scan finds it lapsed.
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1500);
  const res = await answer;
  expect(res.status).toBe(200);
  expect((await api('GET', `/job/${res.body.request_id}`)).body).toMatchObject({ status: 'completed' });
}, 30_000);
