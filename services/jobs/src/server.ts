import { JobsService } from '@media/proto/media/jobs/v1/jobs_pb.js';
import { startService, type SharedInfra, type RunningService } from '@media/platform';
import { openJobsRepository } from './adapters/repository.js';
import type { JobsConfig } from './config.js';
import { createJobsService } from './service.js';

export function startJobs(config: JobsConfig, shared?: SharedInfra): Promise<RunningService> {
  return startService('jobs', config, config.JOBS_PORT, async (infra) => {
    const repo = await openJobsRepository(infra.store);
    return { routes: (r) => r.service(JobsService, createJobsService(repo, config.PARALLEL_JOBS)), services: [JobsService.typeName] };
  }, shared);
}
