// Bounds during a run (issue 39): a task whose outputs would take the disk below DISK_RESERVE_MB
// is stopped at its share of the headroom, and a run past JOB_MEMORY_LIMIT_MB of resident memory
// is stopped at the cap; each fails with its sentence, leaves no file behind and is not charged.
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { spawnStack, type Spawned } from '@media/testkit';
import { freeBytes } from '@media/platform';
import { accountWithClip, type Call } from './spawned-account.js';

const MiB = 1024 * 1024;
const SHARE =
  /^The task's outputs would take more than [\d,]+ MB, the disk space one run may use now .*nothing was charged\. Write smaller outputs/;
const MEMORY =
  'FFmpeg used more than 200 MiB of memory, the limit of one run; the run was stopped and nothing was charged. Use smaller frames (scale down first), fewer threads (-threads 1), filters that keep fewer frames (reverse and loop hold every frame they see), or split the task.';
let stack: Spawned | undefined;

afterEach(async () => {
  await stack?.stop();
  stack = undefined;
});

const usageRows = async (call: Call, base: string): Promise<number> =>
  (await call(base, 'GET', '/account/usage?format=json')).body.rows.length;

/** The usage rows once there are more than `before` (Billing records a charge from its event), or after 10 s. */
async function rowsPast(call: Call, base: string, before: number): Promise<number> {
  const until = Date.now() + 10_000;
  for (;;) {
    const rows = await usageRows(call, base);
    if (rows > before || Date.now() > until) return rows;
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Polls the job until it ends, for at most 60 s. */
async function finished(call: Call, base: string, jobId: string): Promise<Record<string, any>> {
  const until = Date.now() + 60_000;
  for (;;) {
    const job = (await call(base, 'GET', `/job/${jobId}`)).body;
    if (job.status === 'completed' || job.status === 'failed' || Date.now() > until) return job;
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The least free space seen on `dir` until `stop()`, looked at every 10 ms. */
function lowestFree(dir: string): { stop(): Promise<number> } {
  let lowest = Number.POSITIVE_INFINITY;
  let running = true;
  const loop = (async () => {
    while (running) {
      lowest = Math.min(lowest, await freeBytes(dir));
      await new Promise((r) => setTimeout(r, 10));
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      return lowest;
    },
  };
}

test('outputs that would take the disk below the reserve: stopped at the run share, nothing left, nothing charged', async () => {
  // A disk of 640 MiB with 320 MiB reserved: about 310 MiB of headroom, 155 MiB a run (2 slots).
  const reserve = 320 * MiB;
  stack = await spawnStack({ DISK_RESERVE_MB: '320', WORKER_CONCURRENCY: '2' }, undefined, undefined, { tmpfsBytes: 640 * MiB });
  const base = stack.baseUrl;
  const { call, dirId } = await accountWithClip(stack, 'testsrc=duration=2:size=160x120:rate=10');
  const before = await usageRows(call, base);
  // Raw 1080p frames, 3 MB each, 21 x 20 of them: 1.3 GB if nothing stopped it.
  const filling = (name: string) => ({
    task: {
      inputs: [{ file_path: `${dirId}/clip.mp4`, options: ['-stream_loop', '20'] }],
      outputs: [{ file: name, options: ['-vf', 'scale=1920:1080', '-f', 'rawvideo'] }],
    },
  });

  // The report's task: the clip looped 10,000 times into ten stream copies (GBs in seconds).
  const copies = {
    task: {
      inputs: [{ file_path: `${dirId}/clip.mp4`, options: ['-stream_loop', '10000'] }],
      outputs: Array.from({ length: 10 }, (_, i) => ({ file: `copy${i}.mp4`, options: ['-c', 'copy'] })),
    },
  };

  const watch = lowestFree(stack.dataDirHere);
  const copied = await call(base, 'POST', '/ffmpeg/process', copies);
  expect({ status: copied.status, ok: copied.body.ok }).toEqual({ status: 500, ok: false });
  expect(copied.body.error).toMatch(SHARE);
  const sync = await call(base, 'POST', '/ffmpeg/process', filling('sync.yuv'));
  expect({ status: sync.status, ok: sync.body.ok }).toEqual({ status: 500, ok: false });
  expect(sync.body.error).toMatch(SHARE);

  const queued = await call(base, 'POST', '/ffmpeg/process/async', filling('async.yuv'));
  expect(queued.status).toBe(202);
  const job = await finished(call, base, queued.body.job_id);
  expect(job.status).toBe('failed');
  expect(job.error).toMatch(SHARE);
  // The disk never went below the reserve, and what the runs wrote is gone.
  expect(await watch.stop()).toBeGreaterThan(reserve);
  expect(await readdir(join(stack.dataDirHere, 'jobs', 'work'))).toEqual([]);
  const files = (await call(base, 'GET', `/directory/${dirId}`)).body.files.map((f: { file_name: string }) => f.file_name);
  expect(files).toEqual(['clip.mp4']);
  expect(await usageRows(call, base)).toBe(before);
  // The disk is free again: an ordinary task runs.
  const small = { task: { inputs: [{ file_path: `${dirId}/clip.mp4` }], outputs: [{ file: 'thumb.png', options: ['-frames:v', '1'] }] } };
  expect((await call(base, 'POST', '/ffmpeg/process', small)).status).toBe(200);
  // Its charge is the only one: none came late for the stopped runs.
  expect(await rowsPast(call, base, before)).toBe(before + 1);
}, 120_000);

test('a run past JOB_MEMORY_LIMIT_MB of resident memory is stopped at the cap with its sentence, not charged', async () => {
  stack = await spawnStack({ JOB_MEMORY_LIMIT_MB: '200', WORKER_CONCURRENCY: '2' });
  const base = stack.baseUrl;
  const { call, dirId } = await accountWithClip(stack, 'testsrc=duration=2:size=160x120:rate=10');
  const before = await usageRows(call, base);
  // reverse keeps every frame until the input ends: 300 frames of 1080p, about 900 MB.
  const hungry = {
    task: {
      inputs: [{ file_path: `${dirId}/clip.mp4`, options: ['-stream_loop', '14'] }],
      outputs: [{ file: 'reversed.mp4', options: ['-vf', 'scale=1920:1080,reverse'] }],
    },
  };
  const sync = await call(base, 'POST', '/ffmpeg/process', hungry);
  expect({ status: sync.status, body: sync.body }).toEqual({ status: 500, body: { ok: false, error: MEMORY } });
  const queued = await call(base, 'POST', '/ffmpeg/process/async', hungry);
  const job = await finished(call, base, queued.body.job_id);
  expect({ status: job.status, error: job.error }).toEqual({ status: 'failed', error: MEMORY });
  const files = (await call(base, 'GET', `/directory/${dirId}`)).body.files.map((f: { file_name: string }) => f.file_name);
  expect(files).toEqual(['clip.mp4']);
  expect(await usageRows(call, base)).toBe(before);
  // An ordinary transcode fits under the same cap, and is charged.
  const ordinary = {
    task: {
      inputs: [{ file_path: `${dirId}/clip.mp4` }],
      outputs: [{ file: 'small.mp4', options: ['-vf', 'scale=640:360', '-c:v', 'libx264', '-preset', 'veryfast'] }],
    },
  };
  expect((await call(base, 'POST', '/ffmpeg/process', ordinary)).status).toBe(200);
  expect(await rowsPast(call, base, before)).toBe(before + 1);
}, 120_000);
