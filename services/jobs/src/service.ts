import type { ServiceImpl } from '@connectrpc/connect';
import type { JobsService } from '@media/proto/media/jobs/v1/jobs_pb.js';
import { Errors } from '@media/platform';
import type { JobsRepository } from './adapters/repository.js';
import { planTask } from './domain/plan.js';
import { processSync, type ProcessDeps } from './domain/process.js';

export function createJobsService(repo: JobsRepository, deps: ProcessDeps): Partial<ServiceImpl<typeof JobsService>> {
  return {
    async processSync(req) {
      if (!req.task) throw Errors.taskRequired();
      const done = await processSync(deps, { accountId: req.accountId, keyId: req.keyId }, planTask(req.task));
      return {
        requestId: done.requestId,
        result: done.result.map((r) => ({ fileName: r.fileName, sizeBytes: BigInt(r.sizeBytes), downloadUrl: r.downloadUrl })),
        usage: done.usage,
        amountUsd: done.amountUsd,
      };
    },
    async countActiveJobs(req) {
      return { active: await repo.countActive(req.accountId), limit: deps.parallelJobs };
    },
  };
}
