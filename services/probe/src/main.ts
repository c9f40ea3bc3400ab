// Probe service process: configuration from the environment, then serve.
import { loadConfig, runMain, withOpsServer } from '@media/platform';
import { probeConfigSpec } from './config.js';
import { startProbe } from './server.js';

runMain(async () => {
  const config = loadConfig(probeConfigSpec, process.env);
  const service = await startProbe(config);
  // Ready when its own gRPC health (which pings its database) says so.
  return withOpsServer(service, config, { probe: service.url });
}, 'probe');
