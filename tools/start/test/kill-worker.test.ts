// A worker killed with SIGKILL in the middle of a job (here the whole single-process service):
// after a restart on the same data the job runs again and completes — it never stays
// "processing" — and it is charged exactly once.
import { spawnStack, type Spawned } from '@media/testkit';
import { accountWithClip } from './spawned-account.js';

const env = { JOB_LEASE_SEC: '2', JOB_SCAN_INTERVAL_MS: '200' };
let first: Spawned;
let second: Spawned | undefined;

afterAll(async () => {
  await first?.kill();
  await second?.stop();
});

test('kill -9 mid-job: the job completes after restart and is charged once', async () => {
  first = await spawnStack(env);
  const { call: callFull, dirId } = await accountWithClip(first, 'testsrc=duration=6:size=320x240:rate=25');
  const call = async (base: string, method: string, path: string, body?: unknown) => (await callFull(base, method, path, body)).body;
  const submitted = await call(first.baseUrl, 'POST', '/ffmpeg/process/async', {
    task: {
      // -re: the run lasts the clip's 6 s, so it is surely mid-job when killed, on little CPU.
      inputs: [{ file_path: `${dirId}/clip.mp4`, options: ['-re'] }],
      outputs: [{ file: 'out.mp4', options: ['-c:v', 'libx264', '-preset', 'ultrafast'] }],
    },
  });
  const jobId = submitted.job_id as string;
  for (let i = 0; i < 200 && (await call(first.baseUrl, 'GET', `/job/${jobId}`)).status !== 'processing'; i++)
    await new Promise((r) => setTimeout(r, 25));
  expect((await call(first.baseUrl, 'GET', `/job/${jobId}`)).status).toBe('processing');
  await first.kill();

  second = await spawnStack(env, first.dataDir);
  let job: Record<string, any> = {};
  for (let i = 0; i < 600; i++) {
    job = await call(second.baseUrl, 'GET', `/job/${jobId}`);
    if (job.status === 'completed' || job.status === 'failed') break;
    await new Promise((r) => setTimeout(r, 100));
  }
  expect(job.status).toBe('completed');
  expect(job.result[0].file_name).toBe('out.mp4');
  await new Promise((r) => setTimeout(r, 500));
  const usage = await call(second.baseUrl, 'GET', '/account/usage?format=json');
  expect(usage.rows.filter((r: { request_id: string }) => r.request_id === jobId)).toHaveLength(1);
  expect(usage.rows.find((r: { request_id: string }) => r.request_id === jobId).gb_sec).toBe(job.usage.gb_sec);
}, 180_000);
