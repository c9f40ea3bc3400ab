// The month's GB-seconds of an account (GET /account) without reading the month's rows: exact
// totals per month and per hour, kept in billionths. A call reads the month's total; after
// charges, it sums the month's hour totals (at most 744 small documents) and the rows of the
// hours charged since, whatever the account's history.
//
// A total is written from what it sums (set, never incremented), so it is exact and writing it
// twice does no harm. Every charge marks its hour, then its month, changed after its row is
// stored (again on a redelivery, so a crash in between cannot skip it); a changed total is summed
// again at the next call and saved only if no charge marked it meanwhile (compare-and-set on
// `version`).
import type { BillingRepository } from './ports.js';
import { utcMonth } from './month.js';
import { fromNanos, nanosOf } from './sum.js';

const HOUR_MS = 3_600_000;

export const hourOf = (at: Date): Date => new Date(Math.floor(at.getTime() / HOUR_MS) * HOUR_MS);

export async function monthUsedGbSec(
  repo: BillingRepository,
  accountId: string,
  now: Date,
): Promise<{ usedGbSec: number; yearMonth: string; resetsOn: string }> {
  const month = utcMonth(now);
  const used = (nanos: bigint) => ({ usedGbSec: fromNanos(nanos), yearMonth: month.yearMonth, resetsOn: month.resetsOn });
  const total = await repo.monthTotal(accountId, month.yearMonth);
  if (!total) return used(0n); // nothing charged this month
  if (!total.stale) return used(BigInt(total.nanos));
  let nanos = 0n;
  for (const hour of await repo.monthHourTotals(accountId, month.yearMonth)) {
    if (!hour.stale) {
      nanos += BigInt(hour.nanos);
      continue;
    }
    const sum = nanosOf(await repo.gbSecOfHour(accountId, hour.hour));
    await repo.saveHourTotal(hour._id, hour.version, sum.toString());
    nanos += sum;
  }
  await repo.saveMonthTotal(total._id, total.version, nanos.toString());
  return used(nanos);
}
