// kill -9 of `npm start` in the middle of sync requests: started again on the same data, it
// releases their admissions at once (they no longer count toward the account's jobs in
// progress) and lists them failed, uncharged; it does not wait for their lease to lapse.
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { spawnStack, type Spawned } from '@media/testkit';

const run = promisify(execFile);
// A lease far longer than the test: only the release at start can free the slots in time.
const env = { ADMISSION_LEASE_SEC: '600', JOB_SCAN_INTERVAL_MS: '200', PARALLEL_JOBS: '2' };
let first: Spawned;
let second: Spawned | undefined;

afterAll(async () => {
  await first?.kill();
  await second?.stop();
});

test('kill -9 mid sync request: after restart the account is not locked, the request is failed and uncharged', async () => {
  first = await spawnStack(env);
  const clipPath = join(first.dataDir, 'clip.mp4');
  await run('ffmpeg', ['-v', 'error', '-f', 'lavfi', '-i', 'testsrc=duration=20:size=160x120:rate=10', '-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p', clipPath]);
  const { account_id } = await first.admin('account', 'create');
  const { authorization } = await first.admin('key', 'create', '--account', String(account_id), '--name', 'k');
  const call = async (base: string, method: string, path: string, body?: unknown) => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { authorization: String(authorization), 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Record<string, any> };
  };
  const reg = await call(first.baseUrl, 'POST', '/file', { file_name: 'clip.mp4' });
  await fetch(reg.body.upload.url, { method: 'PUT', headers: reg.body.upload.headers, body: await readFile(clipPath) });
  // Two sync runs of about 20 s each (-re): the account's limit of 2 is reached.
  const task = (file: string) => ({ task: { inputs: [{ file_path: `${reg.body.file.dir_id}/clip.mp4`, options: ['-re'] }], outputs: [{ file, options: ['-c', 'copy'] }] } });
  const pending = [call(first.baseUrl, 'POST', '/ffmpeg/process', task('a.mkv')).catch(() => undefined), call(first.baseUrl, 'POST', '/ffmpeg/process', task('b.mkv')).catch(() => undefined)];
  for (let i = 0; i < 200 && (await call(first.baseUrl, 'GET', '/account')).body.jobs?.active !== 2; i++) await new Promise((r) => setTimeout(r, 50));
  expect((await call(first.baseUrl, 'GET', '/account')).body.jobs.active).toBe(2);
  await first.kill();
  await Promise.all(pending);

  second = await spawnStack(env, first.dataDir);
  expect((await call(second.baseUrl, 'GET', '/account')).body.jobs.active).toBe(0);
  const listed = await call(second.baseUrl, 'GET', '/jobs');
  expect(listed.body.jobs.map((j: { status: string }) => j.status)).toEqual(['failed', 'failed']);
  const job = await call(second.baseUrl, 'GET', `/job/${listed.body.jobs[0].id}`);
  expect(job.body.error).toBe('The request was interrupted: the service handling it stopped before it finished.');
  const usage = await call(second.baseUrl, 'GET', '/account/usage?format=json');
  expect(usage.body.rows).toEqual([]);
}, 120_000);
