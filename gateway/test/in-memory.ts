// The fast test level: the gateway's build() with in-memory backing services behind Connect's
// router transport (no sockets, no stores, no other services started). For routing, body rules,
// auth and error shapes; what needs the services' own behaviour starts a stack (startTestStack).
// A method a test does not implement answers Unimplemented, which a test would see as a 500.
import { create } from '@bufbuild/protobuf';
import { createClient, createRouterTransport, type ServiceImpl } from '@connectrpc/connect';
import type { FastifyInstance } from 'fastify';
import { InProcessEventBus } from '@media/eventbus';
import { build, gatewayConfigSpec } from '@media/gateway';
import { Errors, loadConfig, toConnectError } from '@media/platform';
import { AuthService, RateCountSchema } from '@media/proto/media/auth/v1/auth_pb.js';
import { BillingService } from '@media/proto/media/billing/v1/billing_pb.js';
import { JobsService } from '@media/proto/media/jobs/v1/jobs_pb.js';
import { ProbeService } from '@media/proto/media/probe/v1/probe_pb.js';
import { StorageService } from '@media/proto/media/storage/v1/storage_pb.js';

export interface InMemoryServices {
  storage?: Partial<ServiceImpl<typeof StorageService>>;
  jobs?: Partial<ServiceImpl<typeof JobsService>>;
  probe?: Partial<ServiceImpl<typeof ProbeService>>;
  billing?: Partial<ServiceImpl<typeof BillingService>>;
}

export interface InMemoryGateway {
  app: FastifyInstance;
  /** The Authorization value of the one key the in-memory Auth knows (account acc_test). */
  authorization: string;
  /** The RPCs the gateway made, as "media.storage.v1.StorageService/ListDirectories", in order. */
  calls: string[];
  close(): Promise<void>;
}

const KEY = 'mk_inmemorytestkey0000000000000000000000';
export const IN_MEMORY_ACCOUNT = 'acc_test';

/** build() on in-memory services; `env` adds gateway settings (LOG_LEVEL is silent by default). */
export async function buildInMemoryGateway(services: InMemoryServices = {}, env: Record<string, string> = {}): Promise<InMemoryGateway> {
  const calls: string[] = [];
  const window = () => BigInt(Math.floor(Date.now() / 60_000));
  const auth: Partial<ServiceImpl<typeof AuthService>> = {
    authenticate({ authorization }) {
      if (authorization === '') throw toConnectError(Errors.authHeaderRequired());
      if (authorization !== `Basic ${KEY}`) throw toConnectError(Errors.invalidApiKey());
      return {
        accountId: IN_MEMORY_ACCOUNT,
        keyId: 'key_test',
        rateLimitRemaining: 299,
        rateLimitResetSeconds: 60,
        rate: create(RateCountSchema, { keyId: 'key_test', window: window(), previous: 0, current: 1 }),
      };
    },
    countRequests({ admitted }) {
      return { counts: admitted.map((a) => ({ keyId: a.keyId, window: a.window, previous: 0, current: a.count })) };
    },
  };
  const transport = createRouterTransport(
    (router) => {
      router.service(AuthService, auth);
      router.service(StorageService, services.storage ?? {});
      router.service(JobsService, services.jobs ?? {});
      router.service(ProbeService, services.probe ?? {});
      router.service(BillingService, services.billing ?? {});
    },
    {
      transport: {
        interceptors: [
          (next) => async (req) => {
            calls.push(`${req.service.typeName}/${req.method.name}`);
            return next(req);
          },
        ],
      },
    },
  );
  const clients = {
    auth: createClient(AuthService, transport),
    storage: createClient(StorageService, transport),
    jobs: createClient(JobsService, transport),
    probe: createClient(ProbeService, transport),
    billing: createClient(BillingService, transport),
    close: () => {},
  };
  const config = loadConfig(gatewayConfigSpec, { LOG_LEVEL: 'silent', ...env });
  const bus = new InProcessEventBus();
  const app = await build({ config, clients, bus });
  await app.ready();
  return {
    app,
    authorization: `Basic ${KEY}`,
    calls,
    async close() {
      await app.close();
      await bus.close();
    },
  };
}
