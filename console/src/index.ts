export { buildConsole } from './app.js';
export { consoleConfigSpec, type ConsoleConfig } from './config.js';
export { startConsole, type RunningConsole } from './server.js';
