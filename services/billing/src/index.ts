export { billingConfigSpec, type BillingConfig } from './config.js';
export { startBilling } from './server.js';
