// Gateway process: the public REST interface.
import { loadConfig, namingPorts, runMain, withOpsServer } from '@media/platform';
import { gatewayConfigSpec } from './config.js';
import { startGateway } from './server.js';

runMain(async () => {
  const config = loadConfig(gatewayConfigSpec, process.env);
  const gateway = await namingPorts(config, () => startGateway(config));
  // Ready while it serves: its backends' health is reported on /readyz but does not make it
  // unready, since it answers 503 with Retry-After for a backend that is down. Gating on them made
  // every gateway unready at once when one backend was (every Jobs replica killed, the database
  // paused), and the balancer then answered everything itself, without Retry-After (npm run chaos).
  const backends = {
    auth: config.AUTH_URL,
    storage: config.STORAGE_URL,
    jobs: config.JOBS_URL,
    probe: config.PROBE_URL,
    billing: config.BILLING_URL,
  };
  return namingPorts(config, () => withOpsServer(gateway, config, {}, backends));
}, 'gateway');
