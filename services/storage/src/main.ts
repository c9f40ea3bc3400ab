// Storage service process: configuration from the environment, then serve.
import { loadConfig, runMain } from '@media/platform';
import { storageConfigSpec } from './config.js';
import { startStorage } from './server.js';

runMain(() => startStorage(loadConfig(storageConfigSpec, process.env)), 'storage');
