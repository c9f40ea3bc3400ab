import { adminTokenConfig, clientListenerConfig, env, internalTokenConfig, opsListenerConfig, type ConfigOf } from '@media/platform';

export const consoleConfigSpec = {
  LOG_LEVEL: env.oneOf(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const, 'info'),
  /** The web console's listener; unset: none (npm start sets 8083). */
  CONSOLE_PORT: env.optionalInt(0, 65535),
  CONSOLE_HOST: env.string('0.0.0.0'),
  /** Where browsers reach it: login links point here; https makes its cookies Secure. */
  CONSOLE_URL: env.url('http://localhost:8083'),
  /** Auth's internal admin listener (keys, webhook secrets, sign-in and sessions). */
  AUTH_ADMIN_URL: env.url('http://127.0.0.1:50061'),
  /** Sent with every admin call when set (Auth's own value; the chart sets both). */
  ...adminTokenConfig,
  /** Sent with every call to Jobs, Storage and Billing, which check it against INTERNAL_CALLERS. */
  ...internalTokenConfig,
  STORAGE_URL: env.url('http://127.0.0.1:50052'),
  /**
   * Where signed upload URLs point: Storage's PUBLIC_BASE_URL (its local-disk listener). The Files
   * page uploads there with tus, so its origin joins the pages' CSP connect-src; unset: no upload.
   */
  STORAGE_PUBLIC_URL: env.optionalUrl(['http:', 'https:']),
  /** The Files page sends a resumable upload in parts of this many MB (each part, once in, is kept). */
  UPLOAD_CHUNK_MB: env.int(16, 1, 1024),
  JOBS_URL: env.url('http://127.0.0.1:50053'),
  BILLING_URL: env.url('http://127.0.0.1:50055'),
  /** The API reference (the gateway's DOCS_PORT listener), linked from every page; unset: no link. */
  DOCS_URL: env.optionalUrl(['http:', 'https:']),
  /** Named in a suspended account's sentence, as Auth names it (the same variable). */
  SUPPORT_CONTACT: env.string('support@example.com'),
  /** The API's base URL, shown where a page says how to use a key. */
  API_URL: env.url('http://localhost:8080'),
  /** Browsers face it as they face the gateway: the same bounds on slow headers and connections. */
  ...clientListenerConfig,
  /** Alone (node console/dist/main.js), /metrics, /livez and /readyz on METRICS_PORT, as every service. */
  ...opsListenerConfig,
} as const;

export type ConsoleConfig = ConfigOf<typeof consoleConfigSpec>;
