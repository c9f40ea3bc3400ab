import { AuthService } from '@media/proto/media/auth/v1/auth_pb.js';
import { BillingService } from '@media/proto/media/billing/v1/billing_pb.js';
import { JobsService } from '@media/proto/media/jobs/v1/jobs_pb.js';
import { ProbeService } from '@media/proto/media/probe/v1/probe_pb.js';
import { StorageService } from '@media/proto/media/storage/v1/storage_pb.js';
import { clientSet, createServiceClient, internalCallerInterceptors } from '@media/platform';
import type { GatewayConfig } from './config.js';

/** One HTTP/2 session per backing service, each behind its own breaker. */
export function createClients(
  config: Pick<GatewayConfig, 'AUTH_URL' | 'STORAGE_URL' | 'JOBS_URL' | 'PROBE_URL' | 'BILLING_URL'> & {
    INTERNAL_TOKEN?: string | undefined;
  },
) {
  const options = { interceptors: internalCallerInterceptors('gateway', config.INTERNAL_TOKEN) };
  return clientSet({
    auth: createServiceClient(AuthService, config.AUTH_URL, options),
    storage: createServiceClient(StorageService, config.STORAGE_URL, options),
    jobs: createServiceClient(JobsService, config.JOBS_URL, options),
    probe: createServiceClient(ProbeService, config.PROBE_URL, options),
    billing: createServiceClient(BillingService, config.BILLING_URL, options),
  });
}

export type Clients = ReturnType<typeof createClients>;
