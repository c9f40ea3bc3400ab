// Storage service process: configuration from the environment, then serve.
import { loadConfig, runMain, withOpsServer } from '@media/platform';
import { storageConfigSpec } from './config.js';
import { startStorage } from './server.js';

runMain(async () => {
  const config = loadConfig(storageConfigSpec, process.env);
  const service = await startStorage(config);
  // Ready when its own gRPC health (which pings its database) says so.
  return withOpsServer(service, config, { storage: service.url });
}, 'storage');
