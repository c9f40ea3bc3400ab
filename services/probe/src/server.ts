import { join } from 'node:path';
import { JobsService } from '@media/proto/media/jobs/v1/jobs_pb.js';
import { ProbeService } from '@media/proto/media/probe/v1/probe_pb.js';
import { StorageService } from '@media/proto/media/storage/v1/storage_pb.js';
import { type ForkServersOption, openMediaRuntime, startWorkSweeper, WORK_SWEEP_INTERVAL_MS, WORK_SWEEP_MARGIN_MS } from '@media/media';
import {
  admissionOwner,
  createServiceClient,
  internalCallerInterceptors,
  diskReserve,
  LeaseKeeper,
  serving,
  startService,
  type Infra,
  type ServiceSetup,
  type SharedInfra,
  type RunningService,
} from '@media/platform';
import type { ProbeConfig } from './config.js';
import { createProbeService } from './service.js';

export function startProbe(config: ProbeConfig, shared?: SharedInfra, options: ForkServersOption = {}): Promise<RunningService> {
  return startService('probe', config, config.PROBE_PORT, (infra) => setUpProbe(infra, config, options), shared);
}

async function setUpProbe(infra: Infra, config: ProbeConfig, options: ForkServersOption): Promise<ServiceSetup> {
  const { forkServers, releaseForkServers, allowlist, ca } = await openMediaRuntime(config, options, infra.logger);
  const caller = { interceptors: internalCallerInterceptors('probe', config.INTERNAL_TOKEN) };
  const storage = createServiceClient(StorageService, config.STORAGE_URL, caller);
  const jobs = createServiceClient(JobsService, config.JOBS_URL, caller);
  const owner = admissionOwner('probe', config);
  const keeper = new LeaseKeeper(
    (jobIds) => jobs.client.renewAdmissions({ owner, jobIds }),
    config.ADMISSION_LEASE_SEC * 1000,
    (err) => infra.logger.warn({ err }, 'could not renew the leases of probes in progress'),
  );
  const workRoot = config.WORK_DIR ?? join(config.DATA_DIR, 'probe', 'work');
  const deps = {
    admissions: { owner, keeper },
    storage: storage.client,
    jobs: jobs.client,
    bus: infra.bus,
    logger: infra.logger,
    workRoot,
    disk: diskReserve(workRoot, config.DISK_RESERVE_MB, 'probe'),
    timeoutMs: config.JOB_TIMEOUT_SEC * 1000,
    urlMinBytesPerSec: config.URL_MIN_BYTES_PER_SEC,
    allowlist,
    ca,
    forkServers,
  };
  const sweeper = startWorkSweeper(deps.workRoot, deps.timeoutMs + WORK_SWEEP_MARGIN_MS, WORK_SWEEP_INTERVAL_MS, infra.logger);
  return {
    ...serving(ProbeService, createProbeService(deps)),
    close: async () => {
      sweeper.stop();
      keeper.stop();
      storage.close();
      jobs.close();
      await releaseForkServers();
    },
  };
}
