import {
  clientListenerConfig,
  env,
  internalTokenConfig,
  natsConfig,
  opsListenerConfig,
  PARALLEL_JOBS_PER_ACCOUNT,
  RATE_LIMIT_PER_MINUTE,
  type ConfigOf,
} from '@media/platform';

export const gatewayConfigSpec = {
  LOG_LEVEL: env.oneOf(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const, 'info'),
  PORT: env.port(8080),
  HOST: env.string('0.0.0.0'),
  /** The API reference's own listener (docs-server.ts); unset: none. npm start sets 8082. */
  DOCS_PORT: env.optionalInt(0, 65535),
  DOCS_HOST: env.string('0.0.0.0'),
  AUTH_URL: env.url('http://127.0.0.1:50051'),
  STORAGE_URL: env.url('http://127.0.0.1:50052'),
  JOBS_URL: env.url('http://127.0.0.1:50053'),
  PROBE_URL: env.url('http://127.0.0.1:50054'),
  BILLING_URL: env.url('http://127.0.0.1:50055'),
  /** Auth's key events (revocations, account status) reach every gateway over this bus. */
  ...natsConfig,
  /** Per key; the same value as Auth's. Jobs enforces the parallel jobs. */
  RATE_LIMIT_PER_MINUTE: env.int(RATE_LIMIT_PER_MINUTE, 1, 1_000_000),
  /**
   * How long the gateway reuses Auth's verdict on a key when no event evicts it. Auth's own
   * AUTH_CACHE_TTL_SEC (<= 30) adds to it: together under the spec's 60 s for a revoked key.
   */
  GATEWAY_AUTH_CACHE_SEC: env.int(25, 0, 29),
  /** How often the gateway reports the requests it admitted to Auth's shared per-key counts. */
  AUTH_RATE_SYNC_MS: env.int(200, 10, 10_000),
  PARALLEL_JOBS: env.int(PARALLEL_JOBS_PER_ACCOUNT, 1, 10_000),
  /**
   * On shutdown, how long requests in progress (a sync run, say) may take to finish; then their
   * connections are closed, which cancels their runs (nothing charged). Under Kubernetes' default
   * 30 s grace period, so the pod ends on its own terms.
   */
  SHUTDOWN_GRACE_SEC: env.int(20, 0, 3600),
  /** Seconds a client is told to wait when a backing service is down. */
  UNAVAILABLE_RETRY_AFTER_SEC: env.int(5, 1, 600),
  ...clientListenerConfig,
  ...opsListenerConfig,
  /** Sent with every call to the services, which check it against INTERNAL_CALLERS. */
  ...internalTokenConfig,
  /**
   * How long a client may take to send a whole request (headers and body; API bodies are at most
   * 256 KB). A body that trickles in is cut then; waiting for the answer (a sync run) is not counted.
   */
  GATEWAY_REQUEST_TIMEOUT_SEC: env.int(30, 1, 3600),
};

export type GatewayConfig = ConfigOf<typeof gatewayConfigSpec>;
