// A worker killed with SIGKILL in the middle of a job (here the whole single-process service):
// after a restart on the same data the job runs again and completes — it never stays
// "processing" — and it is charged exactly once.
import { spawnStack, waitFor, type Spawned } from '@media/testkit';
import { accountWithClip, usageRowsOf } from './spawned-account.js';

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
  await waitFor('the job processing', async () => (await call(first.baseUrl, 'GET', `/job/${jobId}`)).status === 'processing', 5000);
  await first.kill();

  second = await spawnStack(env, first.dataDir);
  const job = await waitFor(
    'the job finished after the restart',
    async () => {
      const j = await call(second!.baseUrl, 'GET', `/job/${jobId}`);
      return (j.status === 'completed' || j.status === 'failed') && j;
    },
    60_000,
  );
  expect(job.status).toBe('completed');
  expect(job.result[0].file_name).toBe('out.mp4');
  const rows = await usageRowsOf(callFull, second.baseUrl, dirId, jobId);
  expect(rows).toHaveLength(1);
  expect(rows[0]!.gb_sec).toBe(job.usage.gb_sec);
}, 180_000);
