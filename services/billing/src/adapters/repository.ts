// Billing's own data: one usage row per charged request, keyed by request_id.
import { DuplicateKeyError, type DocStore, type Filter } from '@media/docstore';
import type { UsageRow } from '../domain/charge.js';
import type { Position, UsageQuery } from '../domain/cursor.js';
import { utcMonth } from '../domain/month.js';
import type { BillingRepository, HourTotalDoc, KeyTotals, MonthTotalDoc } from '../domain/ports.js';
import { hourOf } from '../domain/quota.js';

/** A usage row as stored: keyed by request_id, so a redelivered charge event cannot make a second row. */
export type UsageRowDoc = Omit<UsageRow, 'requestId'> & { _id: string; [k: string]: unknown };

const toDoc = (r: UsageRow): UsageRowDoc => ({
  _id: r.requestId,
  accountId: r.accountId,
  keyId: r.keyId,
  completedAt: r.completedAt,
  // The hour's rows by one index lookup (the embedded store looks up equalities, not ranges).
  hour: hourOf(r.completedAt),
  gbSec: r.gbSec,
  amountUsd: r.amountUsd,
  kind: r.kind,
});

const toRow = (d: UsageRowDoc): UsageRow => ({
  requestId: d._id,
  accountId: d.accountId,
  keyId: d.keyId,
  completedAt: d.completedAt,
  gbSec: d.gbSec,
  amountUsd: d.amountUsd,
  kind: d.kind,
});

/** Export order: completed_at, then request_id for rows of the same millisecond. */
const ORDER = { completedAt: 1, _id: 1 } as const;

export async function openBillingRepository(store: DocStore): Promise<BillingRepository> {
  const rows = store.collection<UsageRowDoc>('usage_rows');
  // Serves the range scans of the export and the quota sum; the keyset cursor follows ORDER.
  await rows.createIndex({ keys: { accountId: 1, completedAt: 1, _id: 1 } });
  await rows.createIndex({ keys: { accountId: 1, keyId: 1, completedAt: 1, _id: 1 } });
  await rows.createIndex({ keys: { accountId: 1, hour: 1 } });
  const hours = store.collection<HourTotalDoc>('usage_hours');
  await hours.createIndex({ keys: { accountId: 1, yearMonth: 1 } });
  const months = store.collection<MonthTotalDoc>('usage_months');
  const changed = { $inc: { version: 1 }, $set: { stale: true } };
  /** A total's _id: the account and its hour (ISO instant) or month ("YYYY-MM"). */
  const totalId = (accountId: string, period: string) => `${accountId}|${period}`;
  /** Saves a summed total unless a charge marked it since it was read (compare-and-set on version). */
  const saveTotal = async (totals: typeof hours | typeof months, id: string, version: number, nanos: string) =>
    (await totals.findOneAndUpdate({ _id: id, version }, { $set: { nanos, stale: false } })) !== null;

  function filterOf(q: UsageQuery, after?: Position): Filter {
    const filter: Filter = { accountId: q.accountId, completedAt: { $gte: q.from, $lt: q.to } };
    if (q.keyId !== undefined) filter.keyId = q.keyId;
    if (after) {
      // Strictly after the position; the range bound on completedAt stays usable by the index.
      filter.completedAt = { $gte: new Date(Math.max(after.completedAt.getTime(), q.from.getTime())), $lt: q.to };
      filter.$or = [{ completedAt: { $gt: after.completedAt } }, { _id: { $gt: after.requestId } }];
    }
    return filter;
  }

  const repo: BillingRepository = {
    /** false when the request already has its row (a redelivered or duplicated event). */
    async insert(row: UsageRow): Promise<boolean> {
      try {
        await rows.insertOne(toDoc(row));
        return true;
      } catch (err) {
        if (err instanceof DuplicateKeyError || (err as { code?: unknown }).code === 11000) return false;
        throw err;
      }
    },

    async get(requestId: string): Promise<UsageRow | null> {
      const doc = await rows.findOne({ _id: requestId });
      return doc ? toRow(doc) : null;
    },

    /** Rows of the query strictly after `after`, in export order; limit 0 = all. */
    async list(q: UsageQuery, limit: number, after?: Position): Promise<UsageRow[]> {
      const found = await rows.find(filterOf(q, after), { sort: ORDER, ...(limit > 0 ? { limit } : {}) });
      return found.map(toRow);
    },

    /**
     * Rows stored before hour totals existed: their hours of this month marked once, so the
     * totals include them (idempotent; a marker records that it ran).
     */
    async backfillHours(now: Date): Promise<void> {
      const marker = 'backfill|v1';
      if (await hours.findOne({ _id: marker })) return;
      const seen = new Set<string>();
      for (const row of await rows.find({ completedAt: { $gte: utcMonth(now).start } })) {
        const hour = hourOf(row.completedAt);
        if (!(row.hour instanceof Date)) await rows.findOneAndUpdate({ _id: row._id }, { $set: { hour } });
        const key = totalId(row.accountId, hour.toISOString());
        if (seen.has(key)) continue;
        seen.add(key);
        await this.markHour(row.accountId, hour);
      }
      await hours.findOneAndUpdate({ _id: marker }, { $set: { doneAt: now } }, { upsert: true });
    },

    /** A charge of this hour was stored: its total, and its month's, must be summed again. */
    async markHour(accountId: string, hour: Date): Promise<void> {
      const { yearMonth } = utcMonth(hour);
      await hours.findOneAndUpdate(
        { _id: totalId(accountId, hour.toISOString()) },
        { ...changed, $setOnInsert: { accountId, hour, yearMonth, nanos: '0' } },
        { upsert: true },
      );
      // The month after the hour: a month summed in between is marked again.
      await months.findOneAndUpdate(
        { _id: totalId(accountId, yearMonth) },
        { ...changed, $setOnInsert: { accountId, yearMonth, nanos: '0' } },
        { upsert: true },
      );
    },

    /** The month's total (null: nothing was ever charged in it). */
    monthTotal(accountId: string, yearMonth: string): Promise<MonthTotalDoc | null> {
      return months.findOne({ _id: totalId(accountId, yearMonth) });
    },

    saveMonthTotal: (id: string, version: number, nanos: string): Promise<boolean> => saveTotal(months, id, version, nanos),

    /** The hour totals of a month ("YYYY-MM"), in order. */
    async monthHourTotals(accountId: string, yearMonth: string): Promise<HourTotalDoc[]> {
      return hours.find({ accountId, yearMonth }, { sort: { hour: 1 } });
    },

    saveHourTotal: (id: string, version: number, nanos: string): Promise<boolean> => saveTotal(hours, id, version, nanos),

    /** Saves an hour's per-key sums unless a charge marked the hour since it was read (version). */
    saveHourByKey: async (id: string, version: number, byKey: KeyTotals): Promise<boolean> =>
      (await hours.findOneAndUpdate({ _id: id, version }, { $set: { byKey, byKeyVersion: version } })) !== null,

    /** The account's rows of one hour (hourOf): what each key was charged. */
    async rowsOfHour(accountId: string, hour: Date): Promise<Array<{ keyId: string; gbSec: number; amountUsd: number }>> {
      const found = await rows.find({ accountId, hour });
      return found.map((r) => ({ keyId: r.keyId, gbSec: r.gbSec, amountUsd: r.amountUsd }));
    },

    /**
     * A month with rows but no hour totals (charged before totals were kept): its hours marked
     * once, as backfillHours does for the current month.
     */
    async backfillMonth(accountId: string, yearMonth: string): Promise<void> {
      const start = new Date(`${yearMonth}-01T00:00:00Z`);
      const end = new Date(Date.UTC(start.getUTCFullYear(), start.getUTCMonth() + 1, 1));
      const seen = new Set<number>();
      for (const row of await rows.find({ accountId, completedAt: { $gte: start, $lt: end } })) {
        const hour = hourOf(row.completedAt);
        if (!(row.hour instanceof Date)) await rows.findOneAndUpdate({ _id: row._id }, { $set: { hour } });
        if (seen.has(hour.getTime())) continue;
        seen.add(hour.getTime());
        await this.markHour(accountId, hour);
      }
    },

    /** The gb_sec of the account's rows of one hour (hourOf). */
    async gbSecOfHour(accountId: string, hour: Date): Promise<number[]> {
      const found = await rows.find({ accountId, hour });
      return found.map((r) => r.gbSec);
    },
  };
  return repo;
}
