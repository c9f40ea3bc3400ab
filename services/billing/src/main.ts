// Billing service process: configuration from the environment, then serve.
import { loadConfig, runMain, withOpsServer } from '@media/platform';
import { billingConfigSpec } from './config.js';
import { startBilling } from './server.js';

runMain(async () => {
  const config = loadConfig(billingConfigSpec, process.env);
  const service = await startBilling(config);
  // Ready when its own gRPC health (which pings its database) says so.
  return withOpsServer(service, config, { billing: service.url });
}, 'billing');
