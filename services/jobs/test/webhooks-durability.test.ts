// Webhook deliveries live in the store: they survive a restart (a new deliverer on a reopened
// store finishes them), a crashed replica's claim lapses, and replicas sharing a store never send
// the same attempt twice.
import type { DocStore } from '@media/docstore';
import { parseCidrList } from '@media/media';
import { tempDir } from '@media/testkit';
import { Webhook } from 'standardwebhooks';
import { DeliveryRepository } from '../src/webhooks/repository.js';
import {
  WEBHOOK_DELIVERIES,
  type WebhookBody,
  type WebhookDeliverer,
  type WebhookDeliveryDeps,
  createWebhookDeliverer,
} from '../src/webhooks/index.js';
import { type Receiver, SECRET, openJobsStore, silentLogger, standardHeaders, startReceiver, waitFor } from './webhooks-receiver.js';

let receiver: Receiver;
let dir: Awaited<ReturnType<typeof tempDir>>;
const cleanups: (() => Promise<void>)[] = [];

beforeAll(async () => {
  receiver = await startReceiver();
  dir = await tempDir('jobs-webhooks-durable-');
});

afterEach(async () => {
  // Deliverers first, then the stores they use.
  while (cleanups.length > 0) await cleanups.pop()!();
});

afterAll(async () => {
  await receiver?.stop();
  await dir?.remove();
});

async function open(sub: string): Promise<DocStore> {
  const store = await openJobsStore(`${dir.path}/${sub}`);
  cleanups.push(() => store.close());
  return store;
}

async function deliverer(store: DocStore, extra: Partial<WebhookDeliveryDeps> = {}): Promise<WebhookDeliverer> {
  const d = await createWebhookDeliverer({
    store,
    getSecrets: async () => [SECRET],
    logger: silentLogger,
    allowlist: parseCidrList('127.0.0.2/32'),
    ca: receiver.server.ca,
    scheduleMs: [60, 60, 60, 60, 60],
    attemptTimeoutMs: 1000,
    pollIntervalMs: 20,
    ...extra,
  });
  cleanups.push(() => d.stop());
  return d;
}

function body(jobId: string): WebhookBody {
  return {
    event: 'job.failed',
    job_id: jobId,
    status: 'failed',
    request_id: jobId,
    error: 'Input file could not be read',
    completed_at: '2025-01-02T03:04:05.000Z',
  };
}

describe('a restart', () => {
  it('after a failed attempt: the new deliverer on the reopened store completes the delivery', async () => {
    const route = receiver.route((n) => (n === 1 ? 500 : 200));
    const store1 = await open('restart-a');
    const first = await deliverer(store1, { scheduleMs: [300, 300, 300, 300, 300] });
    first.start();
    await first.enqueue({ jobId: 'job_restart1', accountId: 'acc_1', url: route.url, body: body('job_restart1') });
    await waitFor(
      async () =>
        (await first.status('job_restart1'))?.attempts === 1 &&
        route.arrivals.length === 1 &&
        (await first.status('job_restart1'))?.lastStatus === 500,
    );
    await first.stop();
    await store1.close();

    const store2 = await open('restart-a');
    const second = await deliverer(store2, { scheduleMs: [300, 300, 300, 300, 300] });
    expect(await second.status('job_restart1')).toMatchObject({ state: 'pending', attempts: 1, lastStatus: 500 });
    second.start();
    await waitFor(async () => (await second.status('job_restart1'))?.state === 'delivered');
    expect(route.arrivals).toHaveLength(2);
    expect(route.arrivals[1]!.body).toBe(route.arrivals[0]!.body);
    expect(route.arrivals[1]!.headers['webhook-attempt']).toBe('2');
  });

  it('before any attempt: a delivery enqueued but never sent is sent after the restart', async () => {
    const route = receiver.route(() => 200);
    const store1 = await open('restart-b');
    const first = await deliverer(store1); // never started
    await first.enqueue({ jobId: 'job_restart2', accountId: 'acc_1', url: route.url, body: body('job_restart2') });
    await first.stop();
    await store1.close();
    expect(route.arrivals).toHaveLength(0);

    const store2 = await open('restart-b');
    const second = await deliverer(store2);
    second.start();
    await waitFor(async () => (await second.status('job_restart2'))?.state === 'delivered');
    expect(route.arrivals).toHaveLength(1);
    expect(new Webhook(SECRET).verify(route.arrivals[0]!.body, standardHeaders(route.arrivals[0]!.headers))).toEqual(
      JSON.parse(route.arrivals[0]!.body),
    );
  });

  it("a crashed replica's claim lapses, and the next attempt is made by another", async () => {
    const route = receiver.route(() => 200);
    const later = receiver.route(() => 200);
    const store = await open('crash');
    // The deliverer's clock, held at the claim until the test moves it past the lease.
    const claimedAt = Date.now();
    let now = claimedAt;
    const d = await deliverer(store, { now: () => now });
    await d.enqueue({ jobId: 'job_crash', accountId: 'acc_1', url: route.url, body: body('job_crash') });
    // A replica claimed attempt 1 with a 300 ms lease and died before sending.
    const repo = await DeliveryRepository.open(store, 60_000);
    expect(await repo.claimDue('whd_dead', new Date(claimedAt), 300)).toMatchObject({ attempt: 1 });
    d.start();
    // While the lease holds, the claim is left alone: a delivery enqueued later is made meanwhile.
    await d.enqueue({ jobId: 'job_crash_later', accountId: 'acc_1', url: later.url, body: body('job_crash_later') });
    await waitFor(async () => (await d.status('job_crash_later'))?.state === 'delivered');
    expect(route.arrivals).toHaveLength(0);
    now = claimedAt + 300; // the lease lapses
    await waitFor(async () => (await d.status('job_crash'))?.state === 'delivered');
    expect(route.arrivals).toHaveLength(1);
    expect(route.arrivals[0]!.headers['webhook-attempt']).toBe('2');
  });

  it('a replica that outlived its lease cannot overwrite the next attempt', async () => {
    const store = await open('stale');
    const d = await deliverer(store);
    await d.enqueue({ jobId: 'job_stale', accountId: 'acc_1', url: 'https://127.0.0.2:1/', body: body('job_stale') });
    const repo = await DeliveryRepository.open(store, 60_000);
    const t0 = Date.now();
    const stale = (await repo.claimDue('whd_a', new Date(t0), 100))!;
    const fresh = (await repo.claimDue('whd_b', new Date(t0 + 200), 100))!;
    expect(fresh.attempt).toBe(2);
    expect(await repo.record(stale, { kind: 'delivered', status: 200 }, new Date(t0 + 250))).toBe(false);
    expect(await repo.record(fresh, { kind: 'failed', status: 500, error: 'receiver answered 500' }, new Date(t0 + 250))).toBe(true);
    expect(await d.status('job_stale')).toMatchObject({ state: 'failed', attempts: 2, lastStatus: 500 });
  });
});

describe('two replicas on one store', () => {
  it('never deliver the same attempt twice', async () => {
    const route = receiver.route((_n, arrival) => (arrival.headers['webhook-attempt'] === '1' ? 500 : 200));
    const store = await open('replicas');
    // A generous attempt timeout: on a loaded CI worker a first attempt once took over 1 s and
    // failed before reaching the receiver, which this test would read as a lost attempt.
    const a = await deliverer(store, { concurrency: 3, pollIntervalMs: 5, attemptTimeoutMs: 10_000 });
    const b = await deliverer(store, { concurrency: 3, pollIntervalMs: 5, attemptTimeoutMs: 10_000 });
    a.start();
    b.start();
    const ids = Array.from({ length: 20 }, (_, i) => `job_replica${i}`);
    await Promise.all(
      ids.map((jobId, i) => (i % 2 === 0 ? a : b).enqueue({ jobId, accountId: 'acc_1', url: route.url, body: body(jobId) })),
    );
    await waitFor(async () => (await Promise.all(ids.map((id) => a.status(id)))).every((s) => s?.state === 'delivered'));
    // Stopped, each lets its attempts in flight end: every attempt made has arrived.
    await Promise.all([a.stop(), b.stop()]);

    const seen = route.arrivals.map((r) => `${String(r.headers['webhook-id'])}#${String(r.headers['webhook-attempt'])}`);
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen.sort()).toEqual(ids.flatMap((id) => [`${id}#1`, `${id}#2`]).sort());
    const coll = store.collection(WEBHOOK_DELIVERIES);
    expect(await coll.countDocuments({ state: 'delivered', attempts: 2 })).toBe(20);
  });
});
