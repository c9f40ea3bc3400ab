// The web console alone (beside Auth in the chart's Auth pod: it needs Auth's admin listener, which
// stays on that pod's loopback): CONSOLE_PORT, 8083 unless set.
import { loadConfig, runMain } from '@media/platform';
import { consoleConfigSpec } from './config.js';
import { startConsole } from './server.js';

runMain(async () => {
  const config = loadConfig(consoleConfigSpec, process.env);
  return startConsole({ ...config, CONSOLE_PORT: config.CONSOLE_PORT ?? 8083 });
}, 'console');
