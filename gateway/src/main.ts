// Gateway process: the public REST interface.
import { loadConfig, runMain, withOpsServer } from '@media/platform';
import { gatewayConfigSpec } from './config.js';
import { startGateway } from './server.js';

runMain(async () => {
  const config = loadConfig(gatewayConfigSpec, process.env);
  const gateway = await startGateway(config);
  // Ready when every backend answers its gRPC health check.
  const backends = {
    auth: config.AUTH_URL,
    storage: config.STORAGE_URL,
    jobs: config.JOBS_URL,
    probe: config.PROBE_URL,
    billing: config.BILLING_URL,
  };
  return withOpsServer(gateway, config, backends);
}, 'gateway');
