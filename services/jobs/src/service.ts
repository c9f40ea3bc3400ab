import type { ServiceImpl } from '@connectrpc/connect';
import { JobStatus, type JobsService } from '@media/proto/media/jobs/v1/jobs_pb.js';
import { Errors, newId } from '@media/platform';
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
    /** Work run by another service (probes) counts toward the account's jobs in progress. */
    async admitJob(req) {
      const now = new Date();
      const job = {
        _id: newId('job_', 20),
        accountId: req.accountId,
        keyId: req.keyId,
        kind: 'probe' as const,
        status: 'processing' as const,
        webhookUrl: null,
        createdAt: now,
        updatedAt: now,
        completedAt: null,
        inputCount: 1,
        outputCount: 0,
        result: [],
        usage: null,
        amountUsd: null,
        error: null,
      };
      if (!(await repo.admit(job, deps.parallelJobs))) throw Errors.tooManyJobs(deps.busyRetryAfterSec);
      return { jobId: job._id };
    },
    /** Completed or failed records the outcome; anything else (a refused request) removes the admission. */
    async finishJob(req) {
      if (req.status === JobStatus.COMPLETED || req.status === JobStatus.FAILED) {
        await repo.finish(req.jobId, ['processing'], {
          status: req.status === JobStatus.COMPLETED ? 'completed' : 'failed',
          error: req.error ?? null,
          usage: req.usage ? { timeSec: req.usage.timeSec, inputSizeGb: req.usage.inputSizeGb, outputSizeGb: req.usage.outputSizeGb, gbSec: req.usage.gbSec } : null,
          amountUsd: req.amountUsd ?? null,
        });
      } else {
        await repo.removeIfOwned(req.accountId, req.jobId);
      }
      return {};
    },
    async countActiveJobs(req) {
      return { active: await repo.countActive(req.accountId), limit: deps.parallelJobs };
    },
  };
}
