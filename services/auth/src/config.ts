import { adminTokenConfig, commonConfig, DEFAULT_CONSOLE_URL, env, RATE_LIMIT_PER_MINUTE, type ConfigOf } from '@media/platform';

export const authConfigSpec = {
  ...commonConfig,
  AUTH_PORT: env.port(50051),
  /** The console (admin CLI) listener: internal only, never routed by the gateway. */
  AUTH_ADMIN_PORT: env.port(50061),
  AUTH_ADMIN_HOST: env.string('127.0.0.1'),
  /** Required of every admin call when set (the chart sets it: there the listener faces the pod network). */
  ...adminTokenConfig,
  KEY_PREFIX: env.pattern(/^[A-Za-z][A-Za-z0-9]{0,15}$/, 'a letter followed by up to 15 letters or digits', 'mk'),
  CONSOLE_URL: env.url(DEFAULT_CONSOLE_URL),
  SUPPORT_CONTACT: env.string('support@example.com'),
  RATE_LIMIT_PER_MINUTE: env.int(RATE_LIMIT_PER_MINUTE, 1, 1_000_000),
  /** With the gateway's GATEWAY_AUTH_CACHE_SEC (< 30) this keeps a lost event under the spec's 60 s. */
  AUTH_CACHE_TTL_SEC: env.int(30, 0, 30),
};

export type AuthConfig = ConfigOf<typeof authConfigSpec>;
