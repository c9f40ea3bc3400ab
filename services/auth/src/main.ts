// Auth service process: configuration from the environment, then serve.
import { loadConfig, namingPorts, runMain, withOpsServer } from '@media/platform';
import { authConfigSpec } from './config.js';
import { startAuth } from './server.js';

runMain(async () => {
  const config = loadConfig(authConfigSpec, process.env);
  // Ready when its own gRPC health (which pings its database) says so.
  return namingPorts(config, async () => {
    const service = await startAuth(config);
    return withOpsServer(service, config, { auth: service.url });
  });
}, 'auth');
