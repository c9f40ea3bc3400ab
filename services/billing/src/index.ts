export { billingConfigSpec, type BillingConfig } from './config.js';
export { startBilling } from './server.js';
export { createUsageIngestor, USAGE_DURABLE, USAGE_REDELIVERY } from './ingest.js';
export { openBillingRepository } from './adapters/repository.js';
export { createBillingService } from './service.js';
