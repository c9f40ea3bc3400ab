// Probe service process: configuration from the environment, then serve.
import { loadConfig, runMain } from '@media/platform';
import { probeConfigSpec } from './config.js';
import { startProbe } from './server.js';

runMain(() => startProbe(loadConfig(probeConfigSpec, process.env)), 'probe');
