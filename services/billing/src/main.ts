// Billing service process: configuration from the environment, then serve.
import { loadConfig, namingPorts, runMain, withOpsServer } from '@media/platform';
import { billingConfigSpec } from './config.js';
import { startBilling } from './server.js';

runMain(async () => {
  const config = loadConfig(billingConfigSpec, process.env);
  // Ready when its own gRPC health (which pings its database) says so.
  return namingPorts(config, async () => {
    const service = await startBilling(config);
    return withOpsServer(service, config, { billing: service.url });
  });
}, 'billing');
