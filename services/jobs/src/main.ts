// Jobs service process: configuration from the environment, then serve.
import { loadConfig, namingPorts, runMain, withOpsServer } from '@media/platform';
import { jobsConfigSpec } from './config.js';
import { startJobs } from './server.js';

runMain(async () => {
  const config = loadConfig(jobsConfigSpec, process.env);
  // Ready when its own gRPC health (which pings its database) says so.
  return namingPorts(config, async () => {
    const service = await startJobs(config);
    return withOpsServer(service, config, { jobs: service.url });
  });
}, 'jobs');
