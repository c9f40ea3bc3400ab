// The web console alone (its own Deployment in the chart): CONSOLE_PORT, 8083 unless set. It is
// ready while Auth's admin listener, Jobs, Storage and Billing answer their health checks.
import { loadConfig, namingPorts, runMain, withOpsServer } from '@media/platform';
import { consoleConfigSpec } from './config.js';
import { startConsole } from './server.js';

runMain(async () => {
  const config = loadConfig(consoleConfigSpec, process.env);
  const listening = { ...config, CONSOLE_PORT: config.CONSOLE_PORT ?? 8083 };
  const backends = { auth: config.AUTH_ADMIN_URL, jobs: config.JOBS_URL, storage: config.STORAGE_URL, billing: config.BILLING_URL };
  return namingPorts(listening, async () => withOpsServer(await startConsole(listening), config, backends));
}, 'console');
