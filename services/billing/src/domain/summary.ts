// A month's usage per hour and key (the web console's Usage page) without reading the month's
// rows: the hour totals GET /account keeps also carry a per-key split, summed from the hour's
// rows when a charge changed the hour since (the same version the total is marked with). At most
// 744 hours a month, whatever the number of rows.
import type { BillingRepository, KeyTotals } from './ports.js';
import { fromNanos } from './sum.js';

export interface HourKeyTotal {
  hour: Date;
  keyId: string;
  gbSec: number;
  amountUsd: number;
  jobs: number;
}

/** Exact per-key sums of an hour's rows (billionths: both amounts are charged to 9 decimals). */
export function sumByKey(rows: Iterable<{ keyId: string; gbSec: number; amountUsd: number }>): KeyTotals {
  const sums = new Map<string, { gb: bigint; usd: bigint; jobs: number }>();
  for (const r of rows) {
    const s = sums.get(r.keyId) ?? { gb: 0n, usd: 0n, jobs: 0 };
    s.gb += BigInt(Math.round(r.gbSec * 1e9));
    s.usd += BigInt(Math.round(r.amountUsd * 1e9));
    s.jobs++;
    sums.set(r.keyId, s);
  }
  return Object.fromEntries([...sums].map(([k, s]) => [k, { gbNanos: s.gb.toString(), usdNanos: s.usd.toString(), jobs: s.jobs }]));
}

export async function monthSummary(repo: BillingRepository, accountId: string, yearMonth: string): Promise<HourKeyTotal[]> {
  let hours = await repo.monthHourTotals(accountId, yearMonth);
  if (hours.length === 0) {
    // Rows from before hour totals were kept: their hours are marked once, then read as any.
    await repo.backfillMonth(accountId, yearMonth);
    hours = await repo.monthHourTotals(accountId, yearMonth);
  }
  const out: HourKeyTotal[] = [];
  for (const h of hours) {
    let byKey = h.byKey;
    if (!byKey || h.byKeyVersion !== h.version) {
      byKey = sumByKey(await repo.rowsOfHour(accountId, h.hour));
      // Lost to a charge that marked the hour meanwhile: the next view sums it again.
      await repo.saveHourByKey(h._id, h.version, byKey);
    }
    for (const [keyId, t] of Object.entries(byKey)) {
      out.push({ hour: h.hour, keyId, gbSec: fromNanos(BigInt(t.gbNanos)), amountUsd: fromNanos(BigInt(t.usdNanos)), jobs: t.jobs });
    }
  }
  return out;
}
