import { BillingService } from '@media/proto/media/billing/v1/billing_pb.js';
import { startService, type SharedInfra, type RunningService } from '@media/platform';
import { openBillingRepository } from './adapters/repository.js';
import type { BillingConfig } from './config.js';
import { subscribeUsage } from './ingest.js';
import { createBillingService } from './service.js';

export function startBilling(config: BillingConfig, shared?: SharedInfra): Promise<RunningService> {
  return startService(
    'billing',
    config,
    config.BILLING_PORT,
    async (infra) => {
      const repo = await openBillingRepository(infra.store);
      await repo.backfillHours(new Date());
      const usage = await subscribeUsage(infra.bus, { repo, logger: infra.logger });
      return {
        routes: (r) => r.service(BillingService, createBillingService({ repo })),
        services: [BillingService.typeName],
        close: () => usage.stop(),
      };
    },
    shared,
  );
}
