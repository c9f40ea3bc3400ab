export { billingConfigSpec, type BillingConfig } from './config.js';
export { startBilling } from './server.js';
export { createUsageIngestor, USAGE_DURABLE, USAGE_REDELIVERY } from './ingest.js';
