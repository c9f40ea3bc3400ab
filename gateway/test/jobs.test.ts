// Async jobs through the API: states, results, cancel (and its race), listing, progress,
// the time limit — charged only on completion, once.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Events, subscribeEvent } from '@media/platform';
import { startTestStack, type TestStack } from '@media/stack/testing';
import { startNatsServer, waitFor } from '@media/testkit';
import { caller, ISO_MS, sleep, until as waitUntil } from './helpers.js';
import { makeMp4 } from './media-fixtures.js';

let dir: string;
let small: Buffer;
let slow: Buffer;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'jobs-'));
  [small, slow] = await Promise.all([makeMp4(dir, 'small.mp4', 1), makeMp4(dir, 'slow.mp4', 6)]);
}, 60_000);
afterAll(() => rm(dir, { recursive: true, force: true }));

interface Ctx {
  stack: TestStack;
  api: ReturnType<typeof caller>;
  dirId: string;
  charges: string[];
}

async function withStack(env: Record<string, string>, fn: (c: Ctx) => Promise<void>) {
  const stack = await startTestStack(env);
  const charges: string[] = [];
  await subscribeEvent(stack.bus, Events.usageCharged, async (e) => void charges.push(e.requestId));
  try {
    const api = caller(stack, (await stack.newAccount()).authorization);
    let dirId = '';
    for (const [name, bytes] of [
      ['small.mp4', small],
      ['slow.mp4', slow],
    ] as const) {
      const { body } = await api('POST', '/file', dirId ? { file_name: name, dir_id: dirId } : { file_name: name });
      dirId = body.file.dir_id;
      await fetch(body.upload.url, { method: 'PUT', headers: body.upload.headers, body: bytes });
    }
    await fn({ stack, api, dirId, charges });
  } finally {
    await stack.close();
  }
}

const thumb = (dirId: string, out = 't.png') => ({
  task: { inputs: [{ file_path: `${dirId}/small.mp4` }], outputs: [{ file: out, options: ['-frames:v', '1'] }] },
});
// A job that keeps its slot for about 6 s: -re reads the clip at its own pace (little CPU, and
// the same length on a fast or a busy machine).
const heavy = (dirId: string, out: string) => ({
  task: {
    inputs: [{ file_path: `${dirId}/slow.mp4`, options: ['-re'] }],
    outputs: [{ file: out, options: ['-c:v', 'libx264', '-preset', 'ultrafast'] }],
  },
});

async function until(api: Ctx['api'], jobId: string, done: (b: any) => boolean, ms = 60_000) {
  const end = Date.now() + ms;
  for (;;) {
    const res = await api('GET', `/job/${jobId}`);
    if (done(res.body) || Date.now() > end) return res.body;
    await sleep(50);
  }
}

/**
 * Before counting charges: no run of the account's in flight, and the bus drained past every
 * charge published so far. A marker job run now is charged after them (one publisher, one
 * subject: delivered in order), so its event arriving means any duplicate would have too.
 */
async function drained({ api, dirId, charges }: Pick<Ctx, 'api' | 'dirId' | 'charges'>): Promise<void> {
  await waitFor('no run in flight', async () => (await api('GET', '/account')).body.jobs.active === 0, 30_000);
  const marker = await api('POST', '/ffmpeg/process', thumb(dirId, 'marker.png'));
  expect(marker.status).toBe(200);
  await waitFor('the marker charge', () => charges.includes(marker.body.request_id), 10_000);
}

test('submit -> 202 pending -> completed with result, usage and amount; charged once', async () => {
  await withStack({}, async ({ api, dirId, charges }) => {
    const res = await api('POST', '/ffmpeg/process/async', thumb(dirId));
    expect(res.status).toBe(202);
    expect(res.body).toEqual({
      ok: true,
      job_id: expect.stringMatching(/^job_[a-z0-9]+$/),
      status: 'pending',
      request_id: res.body.job_id,
    });
    const job = await until(api, res.body.job_id, (b) => b.status === 'completed' || b.status === 'failed');
    expect(job).toEqual({
      ok: true,
      job_id: res.body.job_id,
      status: 'completed',
      request_id: res.body.job_id,
      result: [{ file_name: 't.png', size_bytes: expect.any(Number), download_url: expect.any(String) }],
      usage: {
        time_sec: expect.any(Number),
        input_size_gb: small.length / 1e9,
        output_size_gb: job.result?.[0]?.size_bytes / 1e9,
        gb_sec: expect.any(Number),
      },
      amount_usd: expect.any(Number),
    });
    expect(job.amount_usd).toBe(Number((job.usage.gb_sec * 0.01332).toFixed(9)));
    const png = Buffer.from(await (await fetch(job.result[0].download_url)).arrayBuffer());
    expect(png.subarray(1, 4).toString()).toBe('PNG');
    // The charge arrives as an event (moments later on NATS); a duplicate would follow it.
    await waitUntil(() => charges.includes(res.body.job_id));
    await drained({ api, dirId, charges });
    expect(charges.filter((c) => c === res.body.job_id)).toHaveLength(1);
    // Unknown and other accounts' jobs.
    expect(await api('GET', '/job/job_doesnotexist0000000')).toMatchObject({ status: 404, body: { ok: false, error: 'Job not found' } });
    // An id no job can have (longer than any) is missing all the same, not a bad request.
    const long = `/job/job_${'x'.repeat(200)}`;
    expect(await api('GET', long)).toMatchObject({ status: 404, body: { ok: false, error: 'Job not found' } });
    expect(await api('DELETE', long)).toMatchObject({ status: 404, body: { ok: false, error: 'Job not found' } });
  });
}, 90_000);

test('another account sees 404 for the job, also once the owner has polled it to completion', async () => {
  await withStack({}, async ({ stack, api, dirId }) => {
    const { body } = await api('POST', '/ffmpeg/process/async', thumb(dirId));
    const other = caller(stack, (await stack.newAccount()).authorization);
    expect(await other('GET', `/job/${body.job_id}`)).toMatchObject({ status: 404, body: { error: 'Job not found' } });
    expect(await other('DELETE', `/job/${body.job_id}`)).toMatchObject({ status: 404, body: { error: 'Job not found' } });
    // A finished job is answered from the gateway's memory after the first poll: still per account.
    const done = await until(api, body.job_id, (b) => b.status === 'completed');
    expect(done.status).toBe('completed');
    expect(await other('GET', `/job/${body.job_id}`)).toMatchObject({ status: 404, body: { error: 'Job not found' } });
    expect(await api('GET', `/job/${body.job_id}`)).toMatchObject({ status: 200, body: done });
  });
}, 60_000);

test('cancel: pending -> cancelled and never runs; processing and completed -> 409; progress while processing', async () => {
  await withStack({ WORKER_CONCURRENCY: '1' }, async ({ api, dirId, charges }) => {
    // The second is sent once the first runs: a job whose inputs are staged first may start
    // before an older one still staging (docs/api/async-jobs.md), and this one stages faster.
    const first = (await api('POST', '/ffmpeg/process/async', heavy(dirId, 'a.mp4'))).body.job_id;
    const running = await until(api, first, (b) => b.status === 'processing' && b.progress);
    const second = (await api('POST', '/ffmpeg/process/async', thumb(dirId, 'never.png'))).body.job_id;
    expect(running.progress).toEqual({
      percent: expect.any(Number),
      fps: expect.any(Number),
      speed: expect.any(Number),
      eta_sec: expect.anything(),
    });
    expect((await api('GET', `/job/${second}`)).body).toEqual({ ok: true, job_id: second, status: 'pending', request_id: second });
    expect(await api('DELETE', `/job/${second}`)).toEqual(
      expect.objectContaining({ status: 200, body: { ok: true, message: expect.any(String) } }),
    );
    expect((await api('GET', `/job/${second}`)).body.status).toBe('cancelled');
    expect(await api('DELETE', `/job/${first}`)).toMatchObject({
      status: 409,
      body: { ok: false, error: "Cannot cancel job in 'processing' status. Only pending jobs can be cancelled." },
    });
    expect(await api('DELETE', `/job/${second}`)).toMatchObject({
      status: 409,
      body: { error: "Cannot cancel job in 'cancelled' status. Only pending jobs can be cancelled." },
    });
    await until(api, first, (b) => b.status === 'completed');
    expect(await api('DELETE', `/job/${first}`)).toMatchObject({
      status: 409,
      body: { error: "Cannot cancel job in 'completed' status. Only pending jobs can be cancelled." },
    });
    // A later job run and charged by the one worker: the queue has moved past the cancelled one.
    const marker = (await api('POST', '/ffmpeg/process/async', thumb(dirId, 'marker.png'))).body.job_id;
    await until(api, marker, (b) => b.status === 'completed');
    await waitFor('the later job charged', () => charges.includes(marker));
    expect((await api('GET', `/job/${second}`)).body.status).toBe('cancelled');
    expect((await api('GET', `/file/${dirId}/never.png`)).status).toBe(404);
    expect(charges).not.toContain(second);
  });
}, 120_000);

test('a cancel racing the pick-up has exactly one winner', async () => {
  await withStack({ WORKER_CONCURRENCY: '2' }, async ({ api, dirId, charges }) => {
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) ids.push((await api('POST', '/ffmpeg/process/async', thumb(dirId, `r${i}.png`))).body.job_id);
    const cancels = await Promise.all(ids.map((id) => api('DELETE', `/job/${id}`)));
    for (const [i, id] of ids.entries()) {
      const final = await until(api, id, (b) => ['completed', 'failed', 'cancelled'].includes(b.status));
      if (cancels[i]!.status === 200) {
        expect(final.status).toBe('cancelled');
      } else {
        expect(cancels[i]!.status).toBe(409);
        expect(final.status).toBe('completed');
      }
    }
    await waitUntil(() => ids.every((id, i) => cancels[i]!.status === 200 || charges.includes(id)));
    await drained({ api, dirId, charges });
    for (const [i, id] of ids.entries()) expect(charges.filter((c) => c === id)).toHaveLength(cancels[i]!.status === 200 ? 0 : 1);
  });
}, 120_000);

test('the time limit: failed "Processing timed out", not charged; failures carry the 500 text', async () => {
  await withStack({ JOB_TIMEOUT_SEC: '1' }, async ({ api, dirId, charges }) => {
    const late = (await api('POST', '/ffmpeg/process/async', heavy(dirId, 'late.mp4'))).body.job_id;
    const bad = (
      await api('POST', '/ffmpeg/process/async', {
        task: { inputs: [{ file_path: `${dirId}/small.mp4` }], outputs: [{ file: 's.mp4', options: ['-map', '0:s'] }] },
      })
    ).body.job_id;
    expect(await until(api, late, (b) => b.status === 'failed')).toEqual({
      ok: true,
      job_id: late,
      status: 'failed',
      request_id: late,
      error: 'Processing timed out',
    });
    const failed = await until(api, bad, (b) => b.status === 'failed');
    expect(failed.error).toMatch(/^FFmpeg command failed with exit code \d+: /);
    expect(charges).toEqual([]);
  });
}, 60_000);

test('submit rules: 400/404/429 like the sync endpoint, never 503', async () => {
  await withStack({ PARALLEL_JOBS: '2', WORKER_CONCURRENCY: '1' }, async ({ api, dirId }) => {
    // No task object, an unknown field: jobs-refusals.test.ts (the fast level; Jobs is never asked).
    expect(await api('POST', '/ffmpeg/process/async', { ...thumb(dirId), webhook_url: 'http://example.com/hook' })).toMatchObject({
      status: 400,
    });
    expect(
      await api('POST', '/ffmpeg/process/async', {
        task: { inputs: [{ file_path: `${dirId}/missing.mp4` }], outputs: [{ file: 'x.png', options: [] }] },
      }),
    ).toMatchObject({
      status: 404,
      body: { error: 'File not found in directory' },
    });
    // The only worker slot is busy: the job waits instead of 503.
    const a = await api('POST', '/ffmpeg/process/async', heavy(dirId, 'h1.mp4'));
    const b = await api('POST', '/ffmpeg/process/async', thumb(dirId, 'q.png'));
    expect([a.status, b.status]).toEqual([202, 202]);
    const c = await api('POST', '/ffmpeg/process/async', thumb(dirId, 'q2.png'));
    expect(c.status).toBe(429);
    expect(Number(c.headers['retry-after'])).toBeGreaterThan(0);
  });
}, 60_000);

test('GET /jobs: filters, sorting, pagination, summary fields; sync jobs listed too', async () => {
  await withStack({}, async ({ api, dirId }) => {
    const sync = await api('POST', '/ffmpeg/process', thumb(dirId, 'sync.png'));
    expect(sync.status).toBe(200);
    const ids = [sync.body.request_id];
    for (let i = 0; i < 4; i++) ids.push((await api('POST', '/ffmpeg/process/async', thumb(dirId, `l${i}.png`))).body.job_id);
    for (const id of ids) await until(api, id, (b) => b.status === 'completed');
    const all = await api('GET', '/jobs');
    expect(all.status).toBe(200);
    expect(all.body.pagination).toEqual({ total: 5, limit: 20, offset: 0, has_more: false });
    expect(all.body.jobs.map((j: any) => j.id)).toEqual([...ids].reverse());
    expect(all.body.jobs[0]).toEqual({
      id: ids[4],
      status: 'completed',
      webhook_url: null,
      created_at: expect.stringMatching(ISO_MS),
      updated_at: expect.stringMatching(ISO_MS),
      completed_at: expect.stringMatching(ISO_MS),
      input_count: 1,
      output_count: 1,
      has_error: false,
    });
    const asc = await api('GET', '/jobs?sort=created_at_asc&limit=2&offset=1');
    expect(asc.body.jobs.map((j: any) => j.id)).toEqual(ids.slice(1, 3));
    expect(asc.body.pagination).toEqual({ total: 5, limit: 2, offset: 1, has_more: true });
    // Past the end, however far (past the RPC's int32 too): an empty page, not an error.
    for (const offset of [5, 2147483648, 9007199254740991]) {
      expect(await api('GET', `/jobs?offset=${offset}`)).toMatchObject({
        status: 200,
        body: { jobs: [], pagination: { total: 5, limit: 20, offset, has_more: false } },
      });
    }
    expect((await api('GET', '/jobs?status=pending,cancelled')).body.pagination.total).toBe(0);
    expect((await api('GET', '/jobs?status=completed')).body.pagination.total).toBe(5);
    // Invalid values -> 400: jobs-refusals.test.ts (the fast level; Jobs is never asked).
  });
}, 90_000);

test('with NATS JetStream: dispatched through the work-queue stream, completed, charged once', async () => {
  const nats = await startNatsServer();
  try {
    await withStack({ NATS_URL: nats.url }, async ({ api, dirId, charges }) => {
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) ids.push((await api('POST', '/ffmpeg/process/async', thumb(dirId, `n${i}.png`))).body.job_id);
      for (const id of ids)
        expect((await until(api, id, (b) => b.status === 'completed' || b.status === 'failed')).status).toBe('completed');
      await waitUntil(() => ids.every((id) => charges.includes(id)));
      await drained({ api, dirId, charges });
      for (const id of ids) expect(charges.filter((c) => c === id)).toHaveLength(1);
    });
  } finally {
    await nats.stop();
  }
}, 90_000);
