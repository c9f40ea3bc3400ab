// Billing's own data: one usage row per charged request, keyed by request_id.
import type { DocStore } from '@media/docstore';

export interface UsageRowDoc {
  _id: string; // request_id: a redelivered charge event cannot make a second row
  accountId: string;
  keyId: string;
  completedAt: Date;
  gbSec: number;
  amountUsd: number;
  [k: string]: unknown;
}

export async function openBillingRepository(store: DocStore) {
  const rows = store.collection<UsageRowDoc>('usage_rows');
  await rows.createIndex({ keys: { accountId: 1, completedAt: 1, _id: 1 } });
  return {
    async sumGbSec(accountId: string, from: Date, to: Date): Promise<number> {
      const found = await rows.find({ accountId, completedAt: { $gte: from, $lt: to } });
      return found.reduce((sum, r) => sum + r.gbSec, 0);
    },
  };
}

export type BillingRepository = Awaited<ReturnType<typeof openBillingRepository>>;
