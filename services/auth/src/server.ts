import type { Interceptor } from '@connectrpc/connect';
import { AuthAdminService, AuthService } from '@media/proto/media/auth/v1/auth_pb.js';
import {
  adminTokenServerInterceptor,
  Events,
  internalCallerCheck,
  openInfra,
  serving,
  startConnectServer,
  subscribeEvent,
  type RateClock,
  type SharedInfra,
} from '@media/platform';
import { openAuthRepository } from './adapters/repository.js';
import type { AuthConfig } from './config.js';
import { createAuthenticator } from './domain/authenticator.js';
import { createLastUsed } from './domain/last-used.js';
import { createAuthAdminService, createAuthService } from './service.js';

export interface RunningAuth {
  url: string;
  adminUrl: string;
  close(): Promise<void>;
}

/** Test-only deps (not config, so no deployment sets them by accident). */
export interface AuthTestDeps {
  /** The rate windows' clock; replicas and gateways counting one key share it. */
  rateClock?: RateClock;
}

export async function startAuth(config: AuthConfig, shared?: SharedInfra, testDeps: AuthTestDeps = {}): Promise<RunningAuth> {
  // Before anything opens: facing a network without its callers' hashes, Auth does not start.
  const callerCheck = internalCallerCheck('auth', config);
  const infra = await openInfra('auth', config, shared);
  const repo = await openAuthRepository(infra.store);
  const authenticator = createAuthenticator(repo, {
    keyPrefix: config.KEY_PREFIX,
    consoleUrl: config.CONSOLE_URL,
    supportContact: config.SUPPORT_CONTACT,
    requestsPerMinute: config.RATE_LIMIT_PER_MINUTE,
    cacheTtlMs: config.AUTH_CACHE_TTL_SEC * 1000,
    rateClock: testDeps.rateClock,
  });
  // Broadcast (no durable name): every Auth replica evicts at once.
  const subscriptions = await Promise.all([
    subscribeEvent(infra.bus, Events.keyRevoked, async (e) => authenticator.forgetKey(e.keyId)),
    subscribeEvent(infra.bus, Events.accountStatusChanged, async (e) => authenticator.forgetAccount(e.accountId)),
  ]);
  const deps = { repo, authenticator, lastUsed: createLastUsed(repo), bus: infra.bus, keyPrefix: config.KEY_PREFIX };
  // Two listeners, each with its own service, address and guard; the same health check and grace.
  const listen = (name: string, host: string, port: number, served: ReturnType<typeof serving>, interceptors: Interceptor[]) =>
    startConnectServer({
      name,
      logger: infra.logger,
      host,
      port,
      routes: served.routes,
      health: { services: served.services, check: async () => (await infra.store.ping(), true) },
      interceptors,
      shutdownGraceMs: config.SHUTDOWN_GRACE_SEC * 1000,
    });
  const server = await listen(
    'auth',
    config.SERVICE_HOST,
    config.AUTH_PORT,
    serving(AuthService, createAuthService(deps)),
    callerCheck(infra.logger),
  );
  const admin = await listen(
    'auth-admin',
    config.AUTH_ADMIN_HOST,
    config.AUTH_ADMIN_PORT,
    serving(AuthAdminService, createAuthAdminService(deps)),
    config.AUTH_ADMIN_TOKEN ? [adminTokenServerInterceptor(config.AUTH_ADMIN_TOKEN)] : [],
  );
  return {
    url: server.url,
    adminUrl: admin.url,
    async close() {
      await Promise.all([server.close(), admin.close()]);
      await Promise.all(subscriptions.map((s) => s.stop()));
      await infra.close();
    },
  };
}
