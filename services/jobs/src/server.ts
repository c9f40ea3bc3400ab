import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { JobsService } from '@media/proto/media/jobs/v1/jobs_pb.js';
import { StorageService } from '@media/proto/media/storage/v1/storage_pb.js';
import { parseCidrList, resolveBinaries } from '@media/media';
import { createServiceClient, startService, type RunningService, type SharedInfra } from '@media/platform';
import { openJobsRepository } from './adapters/repository.js';
import type { JobsConfig } from './config.js';
import { Slots } from './domain/slots.js';
import { createJobsService } from './service.js';

export function startJobs(config: JobsConfig, shared?: SharedInfra): Promise<RunningService> {
  return startService('jobs', config, config.JOBS_PORT, async (infra) => {
    const repo = await openJobsRepository(infra.store);
    // Fails fast (and says which) when neither a system nor a bundled ffmpeg can be found.
    await resolveBinaries({ logger: infra.logger });
    const storage = createServiceClient(StorageService, config.STORAGE_URL);
    const deps = {
      repo,
      storage: storage.client,
      bus: infra.bus,
      logger: infra.logger,
      slots: new Slots(config.WORKER_CONCURRENCY),
      workRoot: config.WORK_DIR ?? join(config.DATA_DIR, 'jobs', 'work'),
      parallelJobs: config.PARALLEL_JOBS,
      busyRetryAfterSec: config.BUSY_RETRY_AFTER_SEC,
      timeoutMs: config.JOB_TIMEOUT_SEC * 1000,
      allowlist: parseCidrList(config.URL_ALLOWLIST_CIDRS),
      ca: config.URL_CA_FILE ? readFileSync(config.URL_CA_FILE, 'utf8') : undefined,
    };
    return {
      routes: (r) => r.service(JobsService, createJobsService(repo, deps)),
      services: [JobsService.typeName],
      close: async () => storage.close(),
    };
  }, shared);
}
