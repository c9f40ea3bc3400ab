// Production shape: two Billing replicas on one MongoDB and NATS JetStream, sharing the durable
// consumer. Duplicated charges (other msgIds, so JetStream's dedup cannot hide them) still make
// one row each, and the keyset pages run on MongoDB's query language as on the embedded engine.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BillingService } from '@media/proto/media/billing/v1/billing_pb.js';
import { connectEventBus, type EventBus } from '@media/eventbus';
import { createServiceClient, loadConfig, newId, toTimestamp, type RunningService, type ServiceClient } from '@media/platform';
import { startMongo, startNatsServer, waitFor, type NatsTestServer, type TestMongo } from '@media/testkit';
import { billingConfigSpec, startBilling } from '../src/index.js';
import { chargeEvent, exportOrder, publishCharge, type Charge } from './helpers.js';

let mongo: TestMongo;
let nats: NatsTestServer;
let dataDir: string;
let publisher: EventBus;
const replicas: RunningService[] = [];
const clients: ServiceClient<typeof BillingService>[] = [];

beforeAll(async () => {
  [mongo, nats] = await Promise.all([startMongo(), startNatsServer()]);
  dataDir = await mkdtemp(join(tmpdir(), 'billing-replicas-'));
  const env = {
    LOG_LEVEL: 'silent',
    DATA_DIR: dataDir,
    MONGODB_URL: mongo.url,
    MONGODB_DB_PREFIX: `${newId('t', 8)}_`,
    NATS_URL: nats.url,
    BILLING_PORT: '0',
  };
  for (let i = 0; i < 2; i++) {
    const r = await startBilling(loadConfig(billingConfigSpec, env));
    replicas.push(r);
    clients.push(createServiceClient(BillingService, r.url));
  }
  publisher = await connectEventBus({ natsUrl: nats.url });
}, 60_000);

afterAll(async () => {
  for (const c of clients) c.close();
  for (const r of replicas) await r.close();
  await publisher?.close();
  await Promise.all([mongo?.stop(), nats?.stop()]);
  await rm(dataDir, { recursive: true, force: true });
});

test('each charge makes one row across replicas, duplicates included; pages agree on both replicas', async () => {
  const accountId = newId('acc_');
  const keyId = newId('key_');
  const base = Date.parse('2019-02-03T04:05:06.007Z');
  const charges: Charge[] = [];
  for (let i = 0; i < 40; i++) {
    charges.push(
      chargeEvent({ accountId, keyId, completedAt: new Date(base + Math.floor(i / 2)), gbSec: i / 8, amountUsd: (i / 8) * 0.01332 }),
    );
  }
  for (const c of charges) {
    await publishCharge(publisher, c);
    await publishCharge(publisher, c, `again:${c.requestId}`); // passes JetStream dedup: Billing must absorb it
  }
  const range = { accountId, from: toTimestamp(new Date('2019-02-01T00:00:00Z')), to: toTimestamp(new Date('2019-03-01T00:00:00Z')) };
  await waitFor('40 rows', async () => (await clients[0]!.client.listUsage({ ...range, limit: 0 })).rows.length >= 40, 20_000);
  // The duplicates drained: a charge of another account, published after them, has its row.
  const marker = chargeEvent({ accountId: newId('acc_'), keyId, completedAt: new Date(base), gbSec: 1, amountUsd: 0.01332 });
  await publishCharge(publisher, marker);
  await waitFor(
    'the later charge stored',
    async () => (await clients[0]!.client.listUsage({ ...range, accountId: marker.accountId, limit: 0 })).rows.length === 1,
    20_000,
  );
  const all = (await clients[1]!.client.listUsage({ ...range, limit: 0 })).rows;
  expect(all.map((r) => r.requestId)).toEqual(exportOrder(charges));
  // A walk that alternates replicas: the cursor is stateless, so any replica continues it.
  const walked: string[] = [];
  let cursor: string | undefined;
  let turn = 0;
  do {
    const page = await clients[turn++ % 2]!.client.listUsage({ ...range, limit: 3, cursor });
    walked.push(...page.rows.map((r) => r.requestId));
    cursor = page.nextCursor;
  } while (cursor);
  expect(walked).toEqual(all.map((r) => r.requestId));
  // The quota counts the current month only: these February 2019 rows do not, two rows of now do.
  const now = [
    chargeEvent({ accountId, keyId, completedAt: new Date(), gbSec: 0.1, amountUsd: 0 }),
    chargeEvent({ accountId, keyId, completedAt: new Date(), gbSec: 0.2, amountUsd: 0 }),
  ];
  for (const c of now) await publishCharge(publisher, c);
  const quota = await waitFor('the quota', async () => {
    const q = await clients[1]!.client.getQuota({ accountId });
    return q.usedGbSec > 0.2 ? q : undefined;
  });
  expect(quota.usedGbSec).toBe(0.3);
});
