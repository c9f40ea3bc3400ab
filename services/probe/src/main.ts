// Probe service process: configuration from the environment, then serve.
import { loadConfig, namingPorts, runMain, withOpsServer } from '@media/platform';
import { probeConfigSpec } from './config.js';
import { startProbe } from './server.js';

runMain(async () => {
  const config = loadConfig(probeConfigSpec, process.env);
  // Ready when its own gRPC health (which pings its database) says so.
  return namingPorts(config, async () => {
    const service = await startProbe(config);
    return withOpsServer(service, config, { probe: service.url });
  });
}, 'probe');
