// Auth service process: configuration from the environment, then serve.
import { loadConfig, runMain } from '@media/platform';
import { authConfigSpec } from './config.js';
import { startAuth } from './server.js';

runMain(() => startAuth(loadConfig(authConfigSpec, process.env)), 'auth');
