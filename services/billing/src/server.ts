import { BillingService } from '@media/proto/media/billing/v1/billing_pb.js';
import { type Infra, type RunningService, type ServiceSetup, serving, type SharedInfra, startService } from '@media/platform';
import { openBillingRepository } from './adapters/repository.js';
import type { BillingConfig } from './config.js';
import { subscribeUsage } from './ingest.js';
import { createBillingService } from './service.js';

export function startBilling(config: BillingConfig, shared?: SharedInfra): Promise<RunningService> {
  return startService('billing', config, config.BILLING_PORT, setUpBilling, shared);
}

async function setUpBilling(infra: Infra): Promise<ServiceSetup> {
  const repo = await openBillingRepository(infra.store);
  await repo.backfillHours(new Date());
  const usage = await subscribeUsage(infra.bus, { repo, logger: infra.logger });
  return { ...serving(BillingService, createBillingService({ repo })), close: () => usage.stop() };
}
