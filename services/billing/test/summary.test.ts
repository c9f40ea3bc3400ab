// The web console's month summary per hour and key, from the kept hour totals: exact, split by
// key, a second view reads no rows, a charge re-sums only its hour, a past month charged before
// totals were kept is backfilled once.
import { create } from '@bufbuild/protobuf';
import { UsageChargedSchema } from '@media/proto/media/events/v1/events_pb.js';
import { openEmbeddedDocStore, type DocStore } from '@media/docstore';
import { newId, toTimestamp } from '@media/platform';
import { tempDir } from '@media/testkit';
import { openBillingRepository } from '../src/adapters/repository.js';
import type { BillingRepository } from '../src/domain/ports.js';
import { createUsageIngestor } from '../src/ingest.js';
import { monthSummary } from '../src/domain/summary.js';

let dir: { path: string; remove: () => Promise<void> };
let store: DocStore;
let repo: BillingRepository;
beforeAll(async () => {
  dir = await tempDir('billing-summary-');
  store = await openEmbeddedDocStore({ dataDir: dir.path, database: 'billing' });
  repo = await openBillingRepository(store);
});
afterAll(async () => {
  await store.close();
  await dir.remove();
});

const logger = { info: () => {}, error: () => {} } as never;
const charge = (accountId: string, keyId: string, iso: string, gbSec: number, amountUsd: number) =>
  create(UsageChargedSchema, {
    requestId: newId('job_'),
    accountId,
    keyId,
    completedAt: toTimestamp(new Date(iso)),
    usage: { gbSec, timeSec: 1, inputSizeGb: 0, outputSizeGb: 0 },
    amountUsd,
  });

/** The repository, counting the usage rows each call reads. */
function counting(): { repo: BillingRepository; rowsRead: () => number } {
  let read = 0;
  const spy = Object.create(repo) as BillingRepository;
  spy.rowsOfHour = async (...args) => {
    const found = await repo.rowsOfHour(...args);
    read += found.length;
    return found;
  };
  return { repo: spy, rowsRead: () => read };
}

test('per hour and key, exact; a second view reads no rows; a charge re-sums its hour only', async () => {
  const accountId = newId('acc_');
  const ingest = createUsageIngestor({ repo, logger });
  for (let i = 0; i < 300; i++)
    await ingest(charge(accountId, i % 3 ? 'key_a' : 'key_b', `2026-03-0${1 + (i % 3)}T10:15:00Z`, 0.1, 0.000_001_2));
  await ingest(charge(accountId, 'key_a', '2026-04-01T00:00:00Z', 5, 1)); // another month
  const first = counting();
  const totals = await monthSummary(first.repo, accountId, '2026-03');
  expect(first.rowsRead()).toBe(300);
  expect(totals).toEqual([
    { hour: new Date('2026-03-01T10:00:00Z'), keyId: 'key_b', gbSec: 10, amountUsd: 0.00012, jobs: 100 },
    { hour: new Date('2026-03-02T10:00:00Z'), keyId: 'key_a', gbSec: 10, amountUsd: 0.00012, jobs: 100 },
    { hour: new Date('2026-03-03T10:00:00Z'), keyId: 'key_a', gbSec: 10, amountUsd: 0.00012, jobs: 100 },
  ]);
  const second = counting();
  expect(await monthSummary(second.repo, accountId, '2026-03')).toEqual(totals);
  expect(second.rowsRead()).toBe(0);
  await ingest(charge(accountId, 'key_c', '2026-03-02T10:59:59Z', 0.25, 0.000_003));
  const third = counting();
  const after = await monthSummary(third.repo, accountId, '2026-03');
  expect(third.rowsRead()).toBe(101);
  expect(after.filter((t) => t.hour.getUTCDate() === 2)).toEqual([
    { hour: new Date('2026-03-02T10:00:00Z'), keyId: 'key_a', gbSec: 10, amountUsd: 0.00012, jobs: 100 },
    { hour: new Date('2026-03-02T10:00:00Z'), keyId: 'key_c', gbSec: 0.25, amountUsd: 0.000003, jobs: 1 },
  ]);
});

test('rows of a month from before totals were kept are summed once they are asked for', async () => {
  const accountId = newId('acc_');
  // Stored as an older Billing stored them: rows only, no hour marked.
  await repo.insert({
    requestId: newId('job_'),
    accountId,
    keyId: 'key_x',
    completedAt: new Date('2025-07-04T05:06:07Z'),
    gbSec: 2,
    amountUsd: 0.5,
    kind: 'sync',
  });
  expect(await monthSummary(repo, accountId, '2025-07')).toEqual([
    { hour: new Date('2025-07-04T05:00:00Z'), keyId: 'key_x', gbSec: 2, amountUsd: 0.5, jobs: 1 },
  ]);
  expect(await monthSummary(repo, accountId, '2025-08')).toEqual([]);
});
