// A client that hangs up on a sync POST /ffmpeg/process before the result: the run stops (its
// ffmpeg is killed), the job is recorded failed with a sentence saying why, nothing is charged,
// and the next request is served as usual (the cancelled call does not trip Jobs' breaker).
import { jest } from '@jest/globals';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { BillingService } from '@media/proto/media/billing/v1/billing_pb.js';
import { JobsService, JobStatus } from '@media/proto/media/jobs/v1/jobs_pb.js';
import { createServiceClient, metrics } from '@media/platform';
import { openEmbeddedDocStore } from '@media/docstore';
import { startTestStack, type TestStack } from '@media/stack/testing';
import { settlesWithin, waitFor } from '@media/testkit';
import { caller, sleep } from './helpers.js';
import { makeMp4 } from './media-fixtures.js';

const CANCELLED =
  'The request was cancelled before the result was ready (the client closed the connection, or the service was shutting down); nothing was charged.';

let stack: TestStack;
let fixtures: string;
let mp4: Buffer;

beforeAll(async () => {
  fixtures = await mkdtemp(join(tmpdir(), 'client-hangup-'));
  [mp4, stack] = await Promise.all([makeMp4(fixtures, 'in.mp4', 1), startTestStack()]);
}, 60_000);
afterAll(async () => {
  await stack?.close();
  await rm(fixtures, { recursive: true, force: true });
});

/**
 * Uploads the clip for a new account of `on` and sends a sync run of it that lasts until stopped
 * (one second of input stretched to many minutes of tiny frames); resolves once the run is listed
 * as processing. `request` settles with the HTTP status, or the error fetch gave.
 */
async function startSlowSyncRun(on: TestStack, signal?: AbortSignal) {
  const { accountId, authorization } = await on.newAccount();
  const api = caller(on, authorization);
  const reg = await api('POST', '/file', { file_name: 'in.mp4' });
  expect((await fetch(reg.body.upload.url, { method: 'PUT', headers: reg.body.upload.headers, body: mp4 })).status).toBe(200);
  const input = reg.body.file.file_path as string;
  const slow = {
    inputs: [{ file_path: input }],
    outputs: [{ file: 'slow.mp4', options: ['-vf', 'setpts=PTS*100000,fps=240,scale=16:16', '-t', '600'] }],
  };
  const started = Date.now();
  const request = fetch(`${on.gatewayUrl}/ffmpeg/process`, {
    method: 'POST',
    headers: { authorization, 'content-type': 'application/json' },
    body: JSON.stringify({ task: slow }),
    signal,
  }).then(
    (res) => res.status,
    (err: unknown) => err,
  );
  while ((await api('GET', '/jobs?status=processing')).body.jobs.length === 0) {
    if (Date.now() - started > 10_000) throw new Error('the sync job never started');
    await sleep(50);
  }
  return { accountId, authorization, api, input, started, request };
}

test('hanging up on a sync run stops it: failed with the reason, not charged', async () => {
  const hangUp = new AbortController();
  const { api, input, started, request } = await startSlowSyncRun(stack, hangUp.signal);
  // Its inputs staged, the run takes its ffmpeg slot (media_jobs_running): hang up on the run itself.
  await waitFor('the run to hold its ffmpeg slot', async () => (await metrics.running.get()).values.some((v) => v.value > 0));
  hangUp.abort();
  expect(await request).toMatchObject({ name: 'AbortError' });

  let failed: { id: string; status: string; error?: string } | undefined;
  for (;;) {
    const { body } = await api('GET', '/jobs?status=failed');
    failed = body.jobs[0];
    if (failed) break;
    if (Date.now() - started > 15_000) throw new Error('the run was not stopped');
    await sleep(100);
  }
  const job = await api('GET', `/job/${failed.id}`);
  expect(job.body).toMatchObject({ status: 'failed', error: CANCELLED });
  expect((await api('GET', '/jobs?status=processing')).body.jobs).toEqual([]);
  const usage = await api('GET', '/account/usage?format=json');
  expect(usage.body.rows).toEqual([]);
  expect((await api('GET', '/account')).body.jobs).toEqual({ active: 0, available_slots: 50 });

  // The next sync request runs as usual.
  const quick = await api('POST', '/ffmpeg/process', {
    task: { inputs: [{ file_path: input }], outputs: [{ file: 'one.png', options: ['-frames:v', '1'] }] },
  });
  expect(quick.status).toBe(200);
  expect((await api('GET', '/account/usage?format=json')).body.rows).toHaveLength(1);
}, 60_000);

test("shutting down past SHUTDOWN_GRACE_SEC closes a sync run's connection: cancelled, not charged, recorded", async () => {
  const short = await startTestStack({ SHUTDOWN_GRACE_SEC: '1' });
  const jobs = createServiceClient(JobsService, short.urls.jobs, { breaker: false, interceptors: short.callAs('gateway') });
  const billing = createServiceClient(BillingService, short.urls.billing, { breaker: false, interceptors: short.callAs('gateway') });
  try {
    const { accountId, request } = await startSlowSyncRun(short);

    // The gateway says when its grace is over and it cuts the connections still open.
    const events: string[] = [];
    const warn = jest.spyOn(short.gateway.app.log, 'warn');
    warn.mockImplementation(((_obj: unknown, msg?: string) => {
      if (msg === 'shutting down: closing connections of requests still in progress') events.push('grace over: cut');
    }) as never);
    void request.then(() => events.push('request ended'));
    await settlesWithin("the gateway's close (its grace second, not the run's ten minutes)", short.gateway.close(), 10_000);
    warn.mockRestore();
    // It waited its grace for the request, then cut it: the request ended by that cut.
    expect(await request).toMatchObject({ name: 'TypeError', message: 'fetch failed' }); // no answer: the connection was closed
    expect(events).toEqual(['grace over: cut', 'request ended']);

    let job;
    const stopDeadline = Date.now() + 15_000;
    for (;;) {
      [job] = (await jobs.client.listJobs({ accountId, statuses: [JobStatus.FAILED], limit: 10 })).jobs;
      if (job) break;
      if (Date.now() > stopDeadline) throw new Error('the run was not stopped');
      await sleep(100);
    }
    expect(job.error).toBe(CANCELLED);
    const day = { from: timestampFromDate(new Date(Date.now() - 86_400_000)), to: timestampFromDate(new Date(Date.now() + 86_400_000)) };
    expect((await billing.client.listUsage({ accountId, ...day, limit: 0 })).rows).toEqual([]);
  } finally {
    jobs.close();
    billing.close();
    await short.close();
  }
}, 60_000);

test('stopping the whole service during a sync run records the run before exiting: after a restart it is failed, its slot free, nothing charged', async () => {
  const dataDir = await mkdtemp(join(tmpdir(), 'client-hangup-restart-'));
  let second: TestStack | undefined;
  try {
    const first = await startTestStack({ DATA_DIR: dataDir, SHUTDOWN_GRACE_SEC: '1' });
    let run;
    try {
      run = await startSlowSyncRun(first);
    } finally {
      await first.close(); // what npm start does on SIGTERM
    }
    expect(await run.request).toMatchObject({ name: 'TypeError', message: 'fetch failed' });
    if (first.adapters !== 'embedded') return; // the networked test servers do not outlive a stack
    second = await startTestStack({ DATA_DIR: dataDir });
    const api = caller(second, run.authorization);
    const { body } = await api('GET', '/jobs');
    expect(body.jobs).toHaveLength(1);
    expect(body.jobs[0]).toMatchObject({ status: 'failed' });
    expect((await api('GET', `/job/${body.jobs[0].id}`)).body).toMatchObject({ status: 'failed', error: CANCELLED });
    expect((await api('GET', '/account')).body.jobs).toEqual({ active: 0, available_slots: 50 });
    expect((await api('GET', '/account/usage?format=json')).body.rows).toEqual([]);
  } finally {
    await second?.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}, 60_000);

test('a Jobs process stopped alone (a rolling update) during a sync run: the caller gets 503, the run is recorded cancelled, not charged', async () => {
  const short = await startTestStack({ SHUTDOWN_GRACE_SEC: '1' });
  try {
    const { accountId, request } = await startSlowSyncRun(short);
    // Its grace second for the run, then the cancel and its record: not the run's ten minutes.
    await settlesWithin('Jobs to close', short.services.jobs.close(), 12_000);
    expect(await request).toBe(503);
    if (short.adapters !== 'embedded') return; // read back below through the embedded store's files
    const store = await openEmbeddedDocStore({ dataDir: short.dataDir, database: 'jobs' });
    try {
      const jobs = await store.collection('jobs').find({ accountId });
      expect(jobs.map((j) => [j.status, j.error])).toEqual([['failed', CANCELLED]]);
    } finally {
      await store.close();
    }
    const day = { from: timestampFromDate(new Date(Date.now() - 86_400_000)), to: timestampFromDate(new Date(Date.now() + 86_400_000)) };
    const billing = createServiceClient(BillingService, short.urls.billing, { breaker: false, interceptors: short.callAs('gateway') });
    try {
      expect((await billing.client.listUsage({ accountId, ...day, limit: 0 })).rows).toEqual([]);
    } finally {
      billing.close();
    }
  } finally {
    await short.close();
  }
}, 60_000);
