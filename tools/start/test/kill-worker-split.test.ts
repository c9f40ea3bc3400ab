// A worker killed with SIGKILL while a split job's parts are encoding (issue 42): after a restart
// on the same data the job runs again, split again, completes once, and is charged exactly once.
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { spawnStack, waitFor, type Spawned } from '@media/testkit';
import { accountWithClip, usageRowsOf } from './spawned-account.js';

const env = { JOB_LEASE_SEC: '2', JOB_SCAN_INTERVAL_MS: '200', PARALLEL_MIN_INPUT_SEC: '5', PARALLEL_PART_SEC: '3' };
let first: Spawned;
let second: Spawned | undefined;

afterAll(async () => {
  await first?.kill();
  await second?.stop();
});

/** The split-parts directories of the runs under way (one per job run that is encoding parts). */
async function partsDirs(stack: Spawned): Promise<string[]> {
  const root = join(stack.dataDirHere, 'jobs', 'work');
  const runs = await readdir(root).catch(() => [] as string[]);
  const found: string[] = [];
  for (const r of runs) if ((await readdir(join(root, r)).catch(() => [] as string[])).includes('split-parts')) found.push(r);
  return found;
}

test('kill -9 while parts encode: the job completes split after restart and is charged once', async () => {
  first = await spawnStack(env);
  // 30 s at 640x360 (keyframes every 10 s): three parts of medium-preset x264, a few seconds' work.
  const { call: callFull, dirId } = await accountWithClip(first, 'testsrc=duration=30:size=640x360:rate=25');
  const call = async (base: string, method: string, path: string, body?: unknown) => (await callFull(base, method, path, body)).body;
  const task = {
    inputs: [{ file_path: `${dirId}/clip.mp4` }],
    outputs: [{ file: 'out.mp4', options: ['-c:v', 'libx264', '-preset', 'medium'] }],
  };
  const submitted = await call(first.baseUrl, 'POST', '/ffmpeg/process/async', { task });
  const jobId = submitted.job_id as string;
  await waitFor('its parts encoding', async () => (await partsDirs(first)).length > 0, 30_000);
  await first.kill();
  const killed = await partsDirs(first);

  second = await spawnStack(env, first.dataDir);
  const job = await waitFor(
    'the job finished after the restart',
    async () => {
      const j = await call(second!.baseUrl, 'GET', `/job/${jobId}`);
      return (j.status === 'completed' || j.status === 'failed') && j;
    },
    90_000,
  );
  expect(job).toMatchObject({ status: 'completed', result: [{ file_name: 'out.mp4' }] });
  expect(job.split_parts).toBeGreaterThanOrEqual(2);
  expect(await usageRowsOf(callFull, second.baseUrl, dirId, jobId)).toHaveLength(1);
  // The run after the restart removed its parts; the killed run's directory stays for the work
  // directory sweep (processing.md: removed once older than any run can last), as any killed run's.
  expect(await partsDirs(second)).toEqual(killed);
}, 240_000);
