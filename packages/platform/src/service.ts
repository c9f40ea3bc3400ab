// The common shape of a service process: open infra, build handlers, serve Connect + health.
import type { DescService } from '@bufbuild/protobuf';
import type { ConnectRouter, ServiceImpl } from '@connectrpc/connect';
import { openInfra, type Infra, type InfraConfig, type SharedInfra } from './infra.js';
import { internalCallerCheck } from './internal-callers.js';
import { startConnectServer } from './server.js';

export interface ServiceSetup {
  routes: (router: ConnectRouter) => void;
  /** Fully-qualified names for grpc.health.v1. */
  services: string[];
  /**
   * Stop taking new background work (a worker claiming queued jobs); called first on shutdown,
   * before the calls in progress are given their grace.
   */
  stopTakingWork?: () => Promise<void>;
  /** Background work to stop before the infra closes (after the calls in progress have ended). */
  close?: () => Promise<void>;
}

export interface RunningService {
  url: string;
  infra: Infra;
  close(): Promise<void>;
}

/** The routes and the health check's name of one Connect service. */
export const serving = <T extends DescService>(desc: T, impl: Partial<ServiceImpl<T>>): Pick<ServiceSetup, 'routes' | 'services'> => ({
  routes: (router) => router.service(desc, impl),
  services: [desc.typeName],
});

export async function startService(
  name: string,
  config: InfraConfig & { SERVICE_HOST: string; SHUTDOWN_GRACE_SEC?: number; INTERNAL_CALLERS?: string | undefined },
  port: number,
  setup: (infra: Infra) => Promise<ServiceSetup>,
  shared?: SharedInfra,
): Promise<RunningService> {
  // Before anything opens: a service facing a network without its callers' hashes does not start.
  const callerCheck = internalCallerCheck(name, config);
  const infra = await openInfra(name, config, shared);
  const built = await setup(infra);
  const server = await startConnectServer({
    name,
    logger: infra.logger,
    host: config.SERVICE_HOST,
    port,
    routes: built.routes,
    interceptors: callerCheck(infra.logger),
    health: { services: built.services, check: async () => (await infra.store.ping(), true) },
    shutdownGraceMs: config.SHUTDOWN_GRACE_SEC === undefined ? undefined : config.SHUTDOWN_GRACE_SEC * 1000,
  });
  return {
    url: server.url,
    infra,
    async close() {
      await built.stopTakingWork?.();
      await server.close();
      await built.close?.();
      await infra.close();
    },
  };
}
