// Storage service process: configuration from the environment, then serve.
import { loadConfig, namingPorts, runMain, withOpsServer } from '@media/platform';
import { storageConfigSpec } from './config.js';
import { startStorage } from './server.js';

runMain(async () => {
  const config = loadConfig(storageConfigSpec, process.env);
  // Ready when its own gRPC health (which pings its database) says so.
  return namingPorts(config, async () => {
    const service = await startStorage(config);
    return withOpsServer(service, config, { storage: service.url });
  });
}, 'storage');
