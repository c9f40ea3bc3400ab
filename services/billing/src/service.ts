// BillingService handlers: the month's quota figures and the usage export's pages.
import type { ServiceImpl } from '@connectrpc/connect';
import type { BillingService } from '@media/proto/media/billing/v1/billing_pb.js';
import { Errors, fromTimestamp, toTimestamp } from '@media/platform';
import type { BillingRepository } from './domain/ports.js';
import { decodeCursor, encodeCursor, type UsageQuery } from './domain/cursor.js';
import { monthUsedGbSec } from './domain/quota.js';
import { monthSummary } from './domain/summary.js';

/** The largest page (the spec's 10000); 0 asks for every row. */
export const MAX_PAGE = 10_000;

export interface BillingServiceDeps {
  repo: BillingRepository;
  now?: () => Date;
}

export function createBillingService(deps: BillingServiceDeps): Partial<ServiceImpl<typeof BillingService>> {
  const now = deps.now ?? (() => new Date());
  return {
    async getQuota(req) {
      if (!req.accountId) throw Errors.invalidRequest('account_id is required');
      return monthUsedGbSec(deps.repo, req.accountId, now());
    },

    async getUsageSummary(req) {
      if (!req.accountId) throw Errors.invalidRequest('account_id is required');
      if (!/^\d{4}-(0[1-9]|1[0-2])$/.test(req.yearMonth)) throw Errors.invalidRequest('year_month must be YYYY-MM');
      const totals = await monthSummary(deps.repo, req.accountId, req.yearMonth);
      return { totals: totals.map((t) => ({ ...t, hour: toTimestamp(t.hour) })) };
    },

    async listUsage(req) {
      const from = fromTimestamp(req.from);
      const to = fromTimestamp(req.to);
      if (!req.accountId) throw Errors.invalidRequest('account_id is required');
      if (!from || !to) throw Errors.invalidRequest('from and to are required');
      if (from.getTime() >= to.getTime()) throw Errors.invalidRequest('from must be before to');
      if (!Number.isInteger(req.limit) || req.limit < 0 || req.limit > MAX_PAGE) {
        throw Errors.invalidRequest(`limit must be an integer from 1 to ${MAX_PAGE} (0 for every row)`);
      }
      const query: UsageQuery = { accountId: req.accountId, from, to, ...(req.keyId !== undefined ? { keyId: req.keyId } : {}) };
      const after = req.cursor !== undefined ? decodeCursor(query, req.cursor) : undefined;
      // One row more than asked tells whether another page exists, so the last page says null.
      const found = await deps.repo.list(query, req.limit === 0 ? 0 : req.limit + 1, after);
      const page = req.limit === 0 ? found : found.slice(0, req.limit);
      const last = page[page.length - 1];
      const more = req.limit !== 0 && found.length > req.limit && last !== undefined;
      return {
        rows: page.map((r) => ({
          requestId: r.requestId,
          completedAt: toTimestamp(r.completedAt),
          keyId: r.keyId,
          accountId: r.accountId,
          gbSec: r.gbSec,
          amountUsd: r.amountUsd,
        })),
        nextCursor: more ? encodeCursor(query, { completedAt: last.completedAt, requestId: last.requestId }) : undefined,
      };
    },
  };
}
