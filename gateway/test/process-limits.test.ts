// Capacity rows of POST /ffmpeg/process: 429 at the account's job limit, 503 with no free worker
// slot, 500 "Processing timed out" past JOB_TIMEOUT_SEC — none of them charged.
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Events, subscribeEvent } from '@media/platform';
import { startTestStack, type TestStack } from '@media/stack/testing';
import { caller, sleep, until } from './helpers.js';
import { makeMp4 } from './media-fixtures.js';

let dir: string;
let clip: Buffer;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'process-limits-'));
  clip = await makeMp4(dir, 'clip.mp4', 6);
}, 60_000);
afterAll(() => rm(dir, { recursive: true, force: true }));

async function withStack(
  env: Record<string, string>,
  fn: (s: TestStack, api: ReturnType<typeof caller>, dirId: string, charges: string[]) => Promise<void>,
) {
  const stack = await startTestStack(env);
  const charges: string[] = [];
  await subscribeEvent(stack.bus, Events.usageCharged, async (e) => void charges.push(e.requestId));
  try {
    const api = caller(stack, (await stack.newAccount()).authorization);
    const { body } = await api('POST', '/file', { file_name: 'clip.mp4' });
    await fetch(body.upload.url, { method: 'PUT', headers: body.upload.headers, body: clip });
    await fn(stack, api, body.file.dir_id, charges);
  } finally {
    await stack.close();
  }
}

// Still running when the second request arrives: -re reads the 6 s clip at its own pace, so the
// run lasts about 6 s on any machine while hardly using the CPU (a slow preset would burn both
// cores for as long, and last longer or shorter with the machine's speed).
const slowTask = (dirId: string, out: string) => ({
  task: {
    inputs: [{ file_path: `${dirId}/clip.mp4`, options: ['-re'] }],
    outputs: [{ file: out, options: ['-c:v', 'libx264', '-preset', 'ultrafast'] }],
  },
});

/**
 * Sends a slow first request and runs `then` once it is admitted (counted toward the account's
 * jobs), or with `stack` once its ffmpeg is running: a sync request takes its slot only after its
 * inputs are staged, so being admitted is not yet holding the slot.
 */
async function whileRunning(api: ReturnType<typeof caller>, dirId: string, then: () => Promise<void>, stack?: TestStack) {
  const first = api('POST', '/ffmpeg/process', slowTask(dirId, 'first.mp4'));
  for (let i = 0; i < 100 && (await api('GET', '/account')).body.jobs.active < 1; i++) await sleep(20);
  if (stack) await ffmpegWriting(stack, 'first.mp4');
  await then();
  return first;
}

/** ffmpeg has begun writing `name` into out/ of a job's work directory. */
async function ffmpegWriting(stack: TestStack, name: string): Promise<void> {
  const root = join(stack.dataDir, 'jobs', 'work');
  for (let i = 0; i < 500; i++) {
    for (const job of await readdir(root).catch(() => [] as string[])) if (existsSync(join(root, job, 'out', name))) return;
    await sleep(20);
  }
  throw new Error(`ffmpeg never started writing ${name}`);
}

test('the account job limit -> 429 with Retry-After', async () => {
  await withStack({ PARALLEL_JOBS: '1', JOB_TIMEOUT_SEC: '60' }, async (_s, api, dirId, charges) => {
    const first = await whileRunning(api, dirId, async () => {
      const res = await api('POST', '/ffmpeg/process', slowTask(dirId, 'second.mp4'));
      expect(res.status).toBe(429);
      expect(res.body).toEqual({ ok: false, error: 'Too many jobs in progress: at most 1 per account. Retry when one finishes.' }); // PARALLEL_JOBS=1, named
      expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    });
    expect((await first).status).toBe(200);
    await until(() => charges.length > 0);
    expect(charges).toHaveLength(1);
  });
}, 120_000);

test('no free worker slot -> 503 with Retry-After and the spec text', async () => {
  await withStack({ WORKER_CONCURRENCY: '1', JOB_TIMEOUT_SEC: '60' }, async (s, api, dirId, charges) => {
    const first = await whileRunning(
      api,
      dirId,
      async () => {
        const res = await api('POST', '/ffmpeg/process', slowTask(dirId, 'second.mp4'));
        expect(res.status).toBe(503);
        expect(res.body).toEqual({ ok: false, error: 'Too busy to start the job now. Retry, or use the async endpoint, which queues it.' });
        expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
      },
      s,
    );
    expect((await first).status).toBe(200);
    await until(() => charges.length > 0);
    expect(charges).toHaveLength(1);
  });
}, 120_000);

test('past JOB_TIMEOUT_SEC -> 500 "Processing timed out", not charged', async () => {
  await withStack({ JOB_TIMEOUT_SEC: '1' }, async (_s, api, dirId, charges) => {
    const res = await api('POST', '/ffmpeg/process', slowTask(dirId, 'late.mp4'));
    expect(res).toMatchObject({ status: 500, body: { ok: false, error: 'Processing timed out' } });
    expect(charges).toHaveLength(0);
    expect((await api('GET', '/account')).body.jobs.active).toBe(0);
  });
}, 120_000);
