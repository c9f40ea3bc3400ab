export { authConfigSpec, type AuthConfig } from './config.js';
export { startAuth, type AuthTestDeps, type RunningAuth } from './server.js';
export { keysFromAuthorization } from './domain/authorization.js';
