import { AuthAdminService } from '@media/proto/media/auth/v1/auth_pb.js';
import { BillingService } from '@media/proto/media/billing/v1/billing_pb.js';
import { JobsService } from '@media/proto/media/jobs/v1/jobs_pb.js';
import { StorageService } from '@media/proto/media/storage/v1/storage_pb.js';
import { adminClientInterceptors, clientSet, createServiceClient, internalCallerInterceptors } from '@media/platform';
import type { ConsoleConfig } from './config.js';

/** The services the console reads and changes, over their internal Connect APIs. */
export function createClients(config: ConsoleConfig) {
  const options = { interceptors: internalCallerInterceptors('console', config.INTERNAL_TOKEN) };
  return clientSet({
    auth: createServiceClient(AuthAdminService, config.AUTH_ADMIN_URL, {
      interceptors: adminClientInterceptors(config.AUTH_ADMIN_TOKEN),
    }),
    jobs: createServiceClient(JobsService, config.JOBS_URL, options),
    storage: createServiceClient(StorageService, config.STORAGE_URL, options),
    billing: createServiceClient(BillingService, config.BILLING_URL, options),
  });
}

export type Clients = ReturnType<typeof createClients>;
