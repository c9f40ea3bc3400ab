// Billing service process: configuration from the environment, then serve.
import { loadConfig, runMain } from '@media/platform';
import { billingConfigSpec } from './config.js';
import { startBilling } from './server.js';

runMain(() => startBilling(loadConfig(billingConfigSpec, process.env)), 'billing');
