// grpc.health.v1 on every service, for Kubernetes gRPC probes and grpc_health_probe.
import { create } from '@bufbuild/protobuf';
import { Code, ConnectError, type ConnectRouter } from '@connectrpc/connect';
import {
  Health,
  HealthCheckResponseSchema,
  HealthCheckResponse_ServingStatus as Status,
  HealthListResponseSchema,
} from '@media/proto/grpc/health/v1/health_pb.js';

export interface HealthOptions {
  /** Fully-qualified service names this server offers (besides the overall "" entry). */
  services: string[];
  /** Dependency check (e.g. database ping); false or a throw means NOT_SERVING. */
  check?: () => Promise<boolean>;
}

/**
 * The name a liveness probe asks for: SERVING whenever the process answers at all, whatever its
 * dependencies. A database outage must make pods unready, not restart them: a Jobs worker waits an
 * outage out with its async jobs (up to their time limit), and a restart would take them away.
 */
export const LIVENESS_SERVICE = 'liveness';

export function registerHealth(router: ConnectRouter, options: HealthOptions): void {
  const known = new Set(['', LIVENESS_SERVICE, ...options.services]);
  const status = async (service: string): Promise<Status> => {
    if (!known.has(service)) throw new ConnectError(`unknown service ${service}`, Code.NotFound);
    if (service === LIVENESS_SERVICE) return Status.SERVING;
    try {
      return (await (options.check?.() ?? true)) ? Status.SERVING : Status.NOT_SERVING;
    } catch {
      return Status.NOT_SERVING;
    }
  };
  router.service(Health, {
    async check(req) {
      return create(HealthCheckResponseSchema, { status: await status(req.service) });
    },
    async list() {
      const statuses: Record<string, ReturnType<typeof create<typeof HealthCheckResponseSchema>>> = {};
      for (const name of known) statuses[name] = create(HealthCheckResponseSchema, { status: await status(name) });
      return create(HealthListResponseSchema, { statuses });
    },
    async *watch(req, ctx) {
      // Report the status now and whenever it changes, checking every 5 s, until the client leaves.
      let last: Status | undefined;
      while (!ctx.signal.aborted) {
        const now = await status(req.service);
        if (now !== last) yield create(HealthCheckResponseSchema, { status: now });
        last = now;
        await new Promise<void>((resolve) => {
          const t = setTimeout(resolve, 5000);
          ctx.signal.addEventListener('abort', () => (clearTimeout(t), resolve()), { once: true });
        });
      }
    },
  });
}
