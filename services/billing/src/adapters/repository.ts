// Billing's own data: one usage row per charged request, keyed by request_id.
import { DuplicateKeyError, type DocStore, type Filter } from '@media/docstore';
import type { UsageRow } from '../domain/charge.js';
import type { Position, UsageQuery } from '../domain/cursor.js';

/** A usage row as stored: keyed by request_id, so a redelivered charge event cannot make a second row. */
export type UsageRowDoc = Omit<UsageRow, 'requestId'> & { _id: string; [k: string]: unknown };

const toDoc = (r: UsageRow): UsageRowDoc => ({
  _id: r.requestId,
  accountId: r.accountId,
  keyId: r.keyId,
  completedAt: r.completedAt,
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

export async function openBillingRepository(store: DocStore) {
  const rows = store.collection<UsageRowDoc>('usage_rows');
  // Serves the range scans of the export and the quota sum; the keyset cursor follows ORDER.
  await rows.createIndex({ keys: { accountId: 1, completedAt: 1, _id: 1 } });
  await rows.createIndex({ keys: { accountId: 1, keyId: 1, completedAt: 1, _id: 1 } });

  function filterOf(q: UsageQuery, after?: Position): Filter {
    const filter: Filter = { accountId: q.accountId, completedAt: { $gte: q.from, $lt: q.to } };
    if (q.keyId !== undefined) filter.keyId = q.keyId;
    if (after) {
      // Strictly after the position; the range bound on completedAt stays usable by the index.
      filter.completedAt = { $gte: after.completedAt > q.from ? after.completedAt : q.from, $lt: q.to };
      filter.$or = [{ completedAt: { $gt: after.completedAt } }, { _id: { $gt: after.requestId } }];
    }
    return filter;
  }

  return {
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

    async gbSecValues(accountId: string, from: Date, to: Date): Promise<number[]> {
      const found = await rows.find({ accountId, completedAt: { $gte: from, $lt: to } });
      return found.map((r) => r.gbSec);
    },
  };
}

export type BillingRepository = Awaited<ReturnType<typeof openBillingRepository>>;
