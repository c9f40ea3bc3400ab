import type { ServiceImpl } from '@connectrpc/connect';
import type { BillingService } from '@media/proto/media/billing/v1/billing_pb.js';
import type { BillingRepository } from './adapters/repository.js';
import { utcMonth } from './domain/month.js';

export function createBillingService(repo: BillingRepository, now: () => Date = () => new Date()): Partial<ServiceImpl<typeof BillingService>> {
  return {
    async getQuota(req) {
      const month = utcMonth(now());
      const used = await repo.sumGbSec(req.accountId, month.start, month.end);
      return { usedGbSec: used, yearMonth: month.yearMonth, resetsOn: month.resetsOn };
    },
  };
}
