export { probeConfigSpec, type ProbeConfig } from './config.js';
export { startProbe } from './server.js';
