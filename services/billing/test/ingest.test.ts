// Charge events -> usage rows through the running Billing service: one row per request_id
// whatever the bus does (duplicate publishes, redelivery after a failure), none for bad events.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { create } from '@bufbuild/protobuf';
import { BillingService } from '@media/proto/media/billing/v1/billing_pb.js';
import { UsageChargedSchema } from '@media/proto/media/events/v1/events_pb.js';
import { JobKind } from '@media/proto/media/jobs/v1/jobs_pb.js';
import { openEmbeddedDocStore, type DocStore } from '@media/docstore';
import { InProcessEventBus, type EventBus } from '@media/eventbus';
import {
  createLogger,
  createServiceClient,
  Events,
  loadConfig,
  newId,
  subscribeEvent,
  toTimestamp,
  type RunningService,
  type ServiceClient,
} from '@media/platform';
import { openBillingRepository } from '../src/adapters/repository.js';
import type { BillingRepository } from '../src/domain/ports.js';
import { billingConfigSpec, createUsageIngestor, startBilling } from '../src/index.js';
import { createBillingService } from '../src/service.js';
import { waitFor } from '@media/testkit';
import { chargeEvent, publishCharge } from './helpers.js';

let dataDir: string;
let bus: EventBus;
let billing: RunningService;
let rpc: ServiceClient<typeof BillingService>;

const FAR = { from: toTimestamp(new Date('2000-01-01T00:00:00Z')), to: toTimestamp(new Date('2100-01-01T00:00:00Z')) };
const listAll = async (accountId: string) => (await rpc.client.listUsage({ accountId, ...FAR, limit: 0 })).rows;
const rowsOf = async (accountId: string, n: number) =>
  waitFor(`${n} rows of ${accountId}`, async () => {
    const rows = await listAll(accountId);
    return rows.length >= n ? rows : undefined;
  });

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'billing-ingest-'));
  bus = new InProcessEventBus();
  billing = await startBilling(loadConfig(billingConfigSpec, { DATA_DIR: dataDir, LOG_LEVEL: 'silent', BILLING_PORT: '0' }), { bus });
  rpc = createServiceClient(BillingService, billing.url);
});
afterAll(async () => {
  rpc?.close();
  await billing?.close();
  await bus?.close();
  await rm(dataDir, { recursive: true, force: true });
});

const account = () => ({ accountId: newId('acc_'), keyId: newId('key_') });

/**
 * Billing has handled the charges published before this call: a charge of another account,
 * published after them, has its row (instead of a quiet period).
 */
async function caughtUp(): Promise<void> {
  const marker = chargeEvent({ ...account(), completedAt: new Date(), gbSec: 1, amountUsd: 0.01332 });
  await publishCharge(bus, marker);
  await rowsOf(marker.accountId, 1);
}

test('sync, async and probe charges each make one row with the event numbers', async () => {
  const who = account();
  const t = Date.now();
  const events = [
    chargeEvent({ ...who, completedAt: new Date(t), gbSec: 0.123456789, amountUsd: 0.001644444, kind: JobKind.SYNC }),
    chargeEvent({ ...who, completedAt: new Date(t + 1), gbSec: 12.5, amountUsd: 0.1665, kind: JobKind.ASYNC }),
    chargeEvent({ ...who, completedAt: new Date(t + 2), gbSec: 0.00000005, amountUsd: 0.000000001, kind: JobKind.PROBE }),
  ];
  for (const e of events) await publishCharge(bus, e);
  const rows = await rowsOf(who.accountId, 3);
  expect(
    rows.map((r) => ({
      requestId: r.requestId,
      keyId: r.keyId,
      accountId: r.accountId,
      gbSec: r.gbSec,
      amountUsd: r.amountUsd,
      at: r.completedAt,
    })),
  ).toEqual(
    events.map((e) => ({
      requestId: e.requestId,
      keyId: who.keyId,
      accountId: who.accountId,
      gbSec: e.usage!.gbSec,
      amountUsd: e.amountUsd,
      at: e.completedAt,
    })),
  );
});

test('a duplicated charge makes one row: same msgId, another msgId, no msgId; the first one counts', async () => {
  const who = account();
  const first = chargeEvent({ ...who, completedAt: new Date(), gbSec: 1, amountUsd: 0.01332 });
  await publishCharge(bus, first);
  await publishCharge(bus, first); // dropped by the bus (same msgId)
  await publishCharge(bus, { ...first, amountUsd: 99 }, `other:${first.requestId}`); // reaches Billing
  await publishCharge(bus, { ...first, usage: { ...first.usage, gbSec: 5 } }, ''); // no msgId at all
  // A later charge, to know the duplicates ahead of it were handled.
  const marker = chargeEvent({ ...who, completedAt: new Date(Date.now() + 5), gbSec: 2, amountUsd: 0.02664 });
  await publishCharge(bus, marker);
  const rows = await rowsOf(who.accountId, 2);
  await caughtUp();
  expect((await listAll(who.accountId)).map((r) => [r.requestId, r.amountUsd])).toEqual([
    [first.requestId, 0.01332],
    [marker.requestId, 0.02664],
  ]);
  expect(rows).toHaveLength(2);
});

test('malformed charges are dropped: no row, acknowledged (no redelivery), logged', async () => {
  const who = account();
  const good = chargeEvent({ ...who, completedAt: new Date(), gbSec: 1, amountUsd: 0.01332 });
  const bad = [
    { ...good, requestId: newId('job_'), keyId: '' },
    { ...good, requestId: newId('job_'), amountUsd: -1 },
    { ...good, requestId: newId('job_'), completedAt: undefined },
  ];
  for (const e of bad) await publishCharge(bus, e);
  await publishCharge(bus, good);
  const rows = await rowsOf(who.accountId, 1);
  await caughtUp();
  expect((await listAll(who.accountId)).map((r) => r.requestId)).toEqual([good.requestId]);
  expect(rows).toHaveLength(1);
  // The handler resolves (= ack) for a malformed event: redelivering it could never help.
  const logged: unknown[] = [];
  const logger = { error: (o: unknown) => void logged.push(o), info: () => {} } as unknown as Parameters<
    typeof createUsageIngestor
  >[0]['logger'];
  const ingest = createUsageIngestor({
    repo: {
      insert: async () => {
        throw new Error('must not be called');
      },
      markHour: async () => {
        throw new Error('must not be called');
      },
    },
    logger,
  });
  for (const e of bad) await expect(ingest(create(UsageChargedSchema, e))).resolves.toBeUndefined();
  expect(logged).toEqual([
    { chargedRequestId: bad[0]!.requestId, problem: 'no key_id' },
    { chargedRequestId: bad[1]!.requestId, problem: 'amount_usd is not a non-negative number (-1)' },
    { chargedRequestId: bad[2]!.requestId, problem: 'no valid completed_at' },
  ]);
});

describe('redelivery', () => {
  let store: DocStore;
  let repo: BillingRepository;
  let ownBus: EventBus;
  beforeAll(async () => {
    store = await openEmbeddedDocStore({ dataDir, database: 'redelivery' });
    repo = await openBillingRepository(store);
    ownBus = new InProcessEventBus({ onError: () => {} });
  });
  afterAll(async () => {
    await ownBus?.close();
    await store?.close();
  });

  test('a handler failure after the row was written (ack lost) redelivers, and still one row', async () => {
    const who = account();
    const deliveries: number[] = [];
    let acked = 0;
    let failures = 0;
    const flaky = {
      async insert(row: Parameters<BillingRepository['insert']>[0]) {
        const inserted = await repo.insert(row);
        if (failures++ === 0) throw new Error('connection reset after the write');
        return inserted;
      },
      markHour: repo.markHour,
    };
    const ingest = createUsageIngestor({ repo: flaky, logger: createLogger('billing', 'silent') });
    const sub = await subscribeEvent(
      ownBus,
      Events.usageCharged,
      async (e, meta) => {
        deliveries.push(meta.deliveryCount);
        await ingest(e);
        acked++; // resolved: acknowledged, never delivered again
      },
      { durable: 'billing-usage', backoffMs: [20] },
    );
    const e = chargeEvent({ ...who, completedAt: new Date(), gbSec: 3, amountUsd: 0.03996 });
    await publishCharge(ownBus, e);
    await waitFor('the redelivery handled (acknowledged)', () => acked > 0);
    await sub.stop();
    expect(deliveries).toEqual([1, 2]);
    const rows = await repo.list({ accountId: who.accountId, from: new Date(0), to: new Date('2100-01-01') }, 0);
    expect(rows.map((r) => r.requestId)).toEqual([e.requestId]);
  });

  test('a store failure before the write is retried until the row is stored', async () => {
    const who = account();
    let calls = 0;
    const down = {
      async insert(row: Parameters<BillingRepository['insert']>[0]) {
        if (++calls <= 2) throw new Error('store unavailable');
        return repo.insert(row);
      },
      markHour: repo.markHour,
    };
    const ingest = createUsageIngestor({ repo: down, logger: createLogger('billing', 'silent') });
    const sub = await subscribeEvent(ownBus, Events.usageCharged, (e) => ingest(e), { durable: 'billing-usage-2', backoffMs: [10] });
    const e = chargeEvent({ ...who, completedAt: new Date(), gbSec: 1, amountUsd: 0.01332 });
    await publishCharge(ownBus, e);
    const row = await waitFor('the row after retries', async () => (await repo.get(e.requestId)) ?? undefined);
    await sub.stop();
    expect(calls).toBe(3);
    expect(row).toMatchObject({ requestId: e.requestId, gbSec: 1, amountUsd: 0.01332 });
  });
});

describe('GetQuota', () => {
  test('used_gb_sec is the exact sum of the UTC month of "now", bounds included/excluded', async () => {
    const who = account();
    const now = new Date('2026-03-15T12:00:00.000Z');
    const at = (iso: string, gbSec: number) => chargeEvent({ ...who, completedAt: new Date(iso), gbSec, amountUsd: 0 });
    const events = [
      at('2026-02-28T23:59:59.999Z', 1000), // previous month
      at('2026-03-01T00:00:00.000Z', 0.1), // first instant: in
      at('2026-03-15T12:00:00.000Z', 0.2),
      at('2026-03-31T23:59:59.999Z', 0.000000001), // last instant: in
      at('2026-04-01T00:00:00.000Z', 2000), // next month
    ];
    for (const e of events) await publishCharge(bus, e);
    await rowsOf(who.accountId, 5);
    const svc = createBillingService({ repo: await openBillingRepository(billing.infra.store), now: () => now });
    // A row is counted once its hour is marked, just after the row is stored.
    const quota = await waitFor('every row counted', async () => {
      const q = (await svc.getQuota!({ accountId: who.accountId } as never, {} as never)) as { usedGbSec: number };
      return q.usedGbSec >= 0.300000001 ? q : undefined;
    });
    expect(quota).toEqual({ usedGbSec: 0.300000001, yearMonth: '2026-03', resetsOn: '2026-04-01' });
    // Through the RPC ("now" is the real clock): an account without rows uses 0.
    const live = await rpc.client.getQuota({ accountId: newId('acc_') });
    expect(live.usedGbSec).toBe(0);
    expect(live.yearMonth).toBe(new Date().toISOString().slice(0, 7));
  });
});
