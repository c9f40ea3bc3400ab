import { env, type ConfigOf } from '@media/platform';

export const gatewayConfigSpec = {
  LOG_LEVEL: env.oneOf(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const, 'info'),
  PORT: env.port(8080),
  HOST: env.string('0.0.0.0'),
  AUTH_URL: env.url('http://127.0.0.1:50051'),
  STORAGE_URL: env.url('http://127.0.0.1:50052'),
  JOBS_URL: env.url('http://127.0.0.1:50053'),
  PROBE_URL: env.url('http://127.0.0.1:50054'),
  BILLING_URL: env.url('http://127.0.0.1:50055'),
  /** Reported by GET /account; the Auth service enforces the rate, Jobs the parallel jobs. */
  RATE_LIMIT_PER_MINUTE: env.int(300, 1, 1_000_000),
  MAX_FILE_SIZE_MB: env.int(5000, 1, 5000),
  PARALLEL_JOBS: env.int(50, 1, 10_000),
  /** Seconds a client is told to wait when a backing service is down. */
  UNAVAILABLE_RETRY_AFTER_SEC: env.int(5, 1, 600),
};

export type GatewayConfig = ConfigOf<typeof gatewayConfigSpec>;
