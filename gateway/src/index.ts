export { build, type GatewayDeps } from './app.js';
export type { RateCounts, RateTestDeps } from './auth/local-rate.js';
export { createClients, type Clients } from './clients.js';
export { gatewayConfigSpec, type GatewayConfig } from './config.js';
export { startGateway, type RunningGateway } from './server.js';
