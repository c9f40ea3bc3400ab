export { build, type GatewayDeps } from './app.js';
export { createClients, type Clients } from './clients.js';
export { gatewayConfigSpec, type GatewayConfig } from './config.js';
export { startGateway, type RunningGateway } from './server.js';
