// build(): the Fastify gateway without listening (tests use inject()); listen() is separate.
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { EventBus } from '@media/eventbus';
import { capConnections, createLogger, MAX_FILE_BYTES, newRequestId } from '@media/platform';
import type { RateTestDeps } from './auth/local-rate.js';
import type { GatewayConfig } from './config.js';
import type { Clients } from './clients.js';
import { accessLogPlugin } from './plugins/access-log.js';
import { authPlugin } from './plugins/auth.js';
import { BODY_LIMIT, bodyPlugin } from './plugins/body.js';
import { clientErrorHandler } from './plugins/client-errors.js';
import { connectionsPlugin } from './plugins/connections.js';
import { errorsPlugin, frameworkErrorHandler, MAX_PARAM_LENGTH } from './plugins/errors.js';
import { idempotencyPlugin } from './plugins/idempotency.js';
import { requestIdPlugin } from './plugins/request-id.js';
import { openapiPlugin } from './plugins/openapi.js';
import { registerTracing } from './plugins/tracing.js';
import { installValidators } from './plugins/validators.js';
import { accountRoutes } from './routes/account.js';
import { directoryRoutes } from './routes/directories.js';
import { fileRoutes } from './routes/files.js';
import { jobRoutes } from './routes/jobs.js';
import { probeRoutes } from './routes/probe.js';
import { processRoutes } from './routes/process.js';
import { usageRoutes } from './routes/usage.js';
import { unavailableRoutes } from './routes/unavailable.js';

export interface GatewayDeps {
  config: GatewayConfig;
  clients: Clients;
  /** Carries Auth's key events to the gateway's key cache. */
  bus: EventBus;
  /** Test-only: the rate windows' clock (shared with Auth) and a hook on each rate report. */
  rate?: RateTestDeps;
}

export async function build({ config, clients, bus, rate }: GatewayDeps): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: createLogger('gateway', config.LOG_LEVEL) as FastifyBaseLogger,
    genReqId: newRequestId,
    // Same key as the services' log lines, so one grep follows a request everywhere.
    // accessLogPlugin writes one line per request instead of Fastify's two.
    logController: new LogController({ requestIdLogLabel: 'requestId', disableRequestLogging: true }),
    bodyLimit: BODY_LIMIT,
    exposeHeadRoutes: false,
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    frameworkErrors: frameworkErrorHandler,
    clientErrorHandler,
    // While it drains (SIGTERM), a request that still comes on an open connection (a balancer
    // reusing its kept-alive connection) is served, with Connection: close, rather than answered
    // with Fastify's own 503 {"error":"Service Unavailable",...}: not the spec's shape, no
    // Retry-After, no X-Request-Id (npm run chaos saw two in the 0.6 s after a gateway's SIGTERM).
    // The drain stays bounded by SHUTDOWN_GRACE_SEC.
    return503OnClosing: false,
    // A client must send its headers, then its whole request, in time; Node checks every second.
    requestTimeout: config.GATEWAY_REQUEST_TIMEOUT_SEC * 1000,
    http: {
      headersTimeout: Math.min(config.HTTP_HEADERS_TIMEOUT_SEC, config.GATEWAY_REQUEST_TIMEOUT_SEC) * 1000,
      requestTimeout: config.GATEWAY_REQUEST_TIMEOUT_SEC * 1000,
      connectionsCheckingInterval: 1000,
    },
  });
  capConnections(app.server, { perAddress: config.CONNECTIONS_PER_ADDRESS, total: config.MAX_CONNECTIONS });
  installValidators(app);
  // First: it wraps the hooks and routes added after it.
  await registerTracing(app);
  // Before any route: it records each route's schema as the route is added.
  await app.register(openapiPlugin);
  await app.register(requestIdPlugin);
  await app.register(connectionsPlugin);
  await app.register(accessLogPlugin);
  await app.register(errorsPlugin, { unavailableRetryAfterSec: config.UNAVAILABLE_RETRY_AFTER_SEC });
  await app.register(bodyPlugin);
  await app.register(authPlugin, {
    auth: clients.auth,
    bus,
    requestsPerMinute: config.RATE_LIMIT_PER_MINUTE,
    cacheTtlMs: config.GATEWAY_AUTH_CACHE_SEC * 1000,
    rateSyncMs: config.AUTH_RATE_SYNC_MS,
    rateTestDeps: rate,
  });
  await app.register(idempotencyPlugin, { auth: clients.auth });
  await app.register(unavailableRoutes);
  await app.register(accountRoutes, {
    billing: clients.billing,
    jobs: clients.jobs,
    limits: {
      requestsPerMinute: config.RATE_LIMIT_PER_MINUTE,
      // The spec's 5 GB in decimal MB: Storage and the URL fetcher enforce it.
      maxFileSizeMb: MAX_FILE_BYTES / 1_000_000,
      parallelJobs: config.PARALLEL_JOBS,
    },
  });
  await app.register(fileRoutes, { storage: clients.storage });
  await app.register(directoryRoutes, { storage: clients.storage });
  await app.register(processRoutes, { jobs: clients.jobs });
  await app.register(jobRoutes, { jobs: clients.jobs });
  await app.register(probeRoutes, { probe: clients.probe });
  await app.register(usageRoutes, { billing: clients.billing });
  return app;
}
