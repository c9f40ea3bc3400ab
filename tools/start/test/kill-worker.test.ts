// A worker killed with SIGKILL in the middle of a job (here the whole single-process service):
// after a restart on the same data the job runs again and completes — it never stays
// "processing" — and it is charged exactly once.
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { spawnStack, type Spawned } from '@media/testkit';

const run = promisify(execFile);
const env = { JOB_LEASE_SEC: '2', JOB_SCAN_INTERVAL_MS: '200' };
let first: Spawned;
let second: Spawned | undefined;

afterAll(async () => {
  await first?.kill();
  await second?.stop();
});

test('kill -9 mid-job: the job completes after restart and is charged once', async () => {
  first = await spawnStack(env);
  const clipPath = join(first.dataDir, 'clip.mp4');
  await run('ffmpeg', ['-v', 'error', '-f', 'lavfi', '-i', 'testsrc=duration=8:size=640x480:rate=25', '-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p', clipPath]);
  const { account_id } = await first.admin('account', 'create');
  const { authorization } = await first.admin('key', 'create', '--account', String(account_id), '--name', 'k');
  const call = async (base: string, method: string, path: string, body?: unknown) => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { authorization: String(authorization), 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return (await res.json()) as Record<string, any>;
  };
  const reg = await call(first.baseUrl, 'POST', '/file', { file_name: 'clip.mp4' });
  await fetch(reg.upload.url, { method: 'PUT', headers: reg.upload.headers, body: await readFile(clipPath) });
  const submitted = await call(first.baseUrl, 'POST', '/ffmpeg/process/async', {
    task: { inputs: [{ file_path: `${reg.file.dir_id}/clip.mp4` }], outputs: [{ file: 'out.mp4', options: ['-c:v', 'libx264', '-preset', 'veryslow', '-crf', '18'] }] },
  });
  const jobId = submitted.job_id as string;
  for (let i = 0; i < 200 && (await call(first.baseUrl, 'GET', `/job/${jobId}`)).status !== 'processing'; i++) await new Promise((r) => setTimeout(r, 25));
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
