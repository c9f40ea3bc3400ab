import type { ServiceImpl } from '@connectrpc/connect';
import type { JobsService } from '@media/proto/media/jobs/v1/jobs_pb.js';
import type { JobsRepository } from './adapters/repository.js';

export function createJobsService(repo: JobsRepository, parallelJobs: number): Partial<ServiceImpl<typeof JobsService>> {
  return {
    async countActiveJobs(req) {
      return { active: await repo.countActive(req.accountId), limit: parallelJobs };
    },
  };
}
