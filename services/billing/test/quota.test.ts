// GET /account's month total from exact hour totals: a call reads the hour totals and the
// current hour's rows only; late charges, concurrent charges and rows from before the totals
// existed are all counted, exactly.
import { create } from '@bufbuild/protobuf';
import { UsageChargedSchema } from '@media/proto/media/events/v1/events_pb.js';
import { openEmbeddedDocStore, type DocStore } from '@media/docstore';
import { newId } from '@media/platform';
import { tempDir } from '@media/testkit';
import { openBillingRepository } from '../src/adapters/repository.js';
import type { BillingRepository } from '../src/domain/ports.js';
import { hourOf, monthUsedGbSec } from '../src/domain/quota.js';
import { createUsageIngestor } from '../src/ingest.js';
import type { UsageRow } from '../src/domain/charge.js';
import { chargeEvent } from './helpers.js';

let dir: { path: string; remove: () => Promise<void> };
let store: DocStore;
let repo: BillingRepository;
beforeAll(async () => {
  dir = await tempDir('billing-quota-');
  store = await openEmbeddedDocStore({ dataDir: dir.path, database: 'billing' });
  repo = await openBillingRepository(store);
});
afterAll(async () => {
  await store.close();
  await dir.remove();
});

const now = new Date('2026-03-15T12:30:00.000Z');
const logger = { info: () => {}, error: () => {} } as never;
const row = (accountId: string, iso: string, gbSec: number): UsageRow => ({
  requestId: newId('job_'),
  accountId,
  keyId: 'key_1',
  completedAt: new Date(iso),
  gbSec,
  amountUsd: 0,
  kind: 'sync',
});

/** The repository, counting the usage rows each call reads. */
function counting(): { repo: BillingRepository; rowsRead: () => number } {
  let read = 0;
  const spy = Object.create(repo) as BillingRepository;
  spy.gbSecOfHour = async (...args) => {
    const values = await repo.gbSecOfHour(...args);
    read += values.length;
    return values;
  };
  return { repo: spy, rowsRead: () => read };
}

test('exact over many rows; a later call reads only the rows of hours charged since', async () => {
  const accountId = newId('acc_');
  const ingest = createUsageIngestor({ repo, logger });
  // 3000 rows of 0.1 GB-s over 60 past hours (a float sum would drift), and 5 in this hour.
  for (let i = 0; i < 3000; i++) await ingest(toEvent(row(accountId, new Date(Date.UTC(2026, 2, 12, i % 60, i % 59)).toISOString(), 0.1)));
  for (let i = 0; i < 5; i++) await ingest(toEvent(row(accountId, '2026-03-15T12:10:00.000Z', 0.000000001)));
  const first = counting();
  expect(await monthUsedGbSec(first.repo, accountId, now)).toEqual({
    usedGbSec: 300.000000005,
    yearMonth: '2026-03',
    resetsOn: '2026-04-01',
  });
  expect(first.rowsRead()).toBe(3005); // the changed hours, summed once
  const second = counting();
  expect((await monthUsedGbSec(second.repo, accountId, now)).usedGbSec).toBe(300.000000005);
  expect(second.rowsRead()).toBe(0);
  await ingest(toEvent(row(accountId, '2026-03-15T12:20:00.000Z', 1)));
  const third = counting();
  expect((await monthUsedGbSec(third.repo, accountId, now)).usedGbSec).toBe(301.000000005);
  expect(third.rowsRead()).toBe(6); // this hour's
});

test('a late charge for an hour already summed, and one arriving while it is summed, both count', async () => {
  const accountId = newId('acc_');
  const ingest = createUsageIngestor({ repo, logger });
  await ingest(toEvent(row(accountId, '2026-03-02T08:00:00.000Z', 1)));
  expect((await monthUsedGbSec(repo, accountId, now)).usedGbSec).toBe(1);
  await ingest(toEvent(row(accountId, '2026-03-02T08:59:59.999Z', 0.5))); // delivered late
  expect((await monthUsedGbSec(repo, accountId, now)).usedGbSec).toBe(1.5);
  // A charge marks the hour between a call's read and its save: the stale sum is not saved.
  const hour = (await repo.monthHourTotals(accountId, '2026-03')).find(
    (h) => h.hour.getTime() === hourOf(new Date('2026-03-02T08:00:00Z')).getTime(),
  );
  await ingest(toEvent(row(accountId, '2026-03-02T08:30:00.000Z', 0.25)));
  expect(await repo.saveHourTotal(hour!._id, hour!.version, '0')).toBe(false);
  expect((await monthUsedGbSec(repo, accountId, now)).usedGbSec).toBe(1.75);
  // A redelivered charge: one row, the same total.
  const again = row(accountId, '2026-03-03T00:00:00.000Z', 2);
  await ingest(toEvent(again));
  await ingest(toEvent(again));
  expect((await monthUsedGbSec(repo, accountId, now)).usedGbSec).toBe(3.75);
});

test('rows stored before hour totals existed are counted after the backfill at start', async () => {
  const accountId = newId('acc_');
  for (const iso of ['2026-03-01T00:00:00.000Z', '2026-03-10T10:00:00.000Z', '2026-02-20T00:00:00.000Z'])
    await repo.insert(row(accountId, iso, 1));
  expect((await monthUsedGbSec(repo, accountId, now)).usedGbSec).toBe(0);
  await repo.backfillHours(now);
  expect((await monthUsedGbSec(repo, accountId, now)).usedGbSec).toBe(2);
});

/** The charge event that stores `r`, as the charging services publish it. */
const toEvent = (r: UsageRow) =>
  create(
    UsageChargedSchema,
    chargeEvent({
      requestId: r.requestId,
      accountId: r.accountId,
      keyId: r.keyId,
      completedAt: r.completedAt,
      gbSec: r.gbSec,
      amountUsd: r.amountUsd,
    }),
  );
