// Gateway process: the public REST interface.
import { loadConfig, runMain } from '@media/platform';
import { gatewayConfigSpec } from './config.js';
import { startGateway } from './server.js';

runMain(() => startGateway(loadConfig(gatewayConfigSpec, process.env)), 'gateway');
