import type { ServiceImpl } from '@connectrpc/connect';
import { JobStatus, type JobsService } from '@media/proto/media/jobs/v1/jobs_pb.js';
import { planTask } from '@media/media';
import { Errors } from '@media/platform';
import { admissionLease, newJobDoc } from './domain/job-doc.js';
import type { JobsRepository } from './domain/ports.js';
import { processSync } from './domain/process.js';
import { submitAsync, type SubmitDeps } from './domain/submit.js';
import { jobDetailMessage, jobMessage, statusName } from './domain/views.js';

export function createJobsService(repo: JobsRepository, deps: SubmitDeps, wake: () => void): ServiceImpl<typeof JobsService> {
  return {
    async submitAsync(req) {
      if (!req.task) throw Errors.taskRequired();
      const job = await submitAsync(deps, { accountId: req.accountId, keyId: req.keyId }, req.task, req.webhookUrl);
      wake();
      return { jobId: job._id, status: JobStatus.PENDING };
    },
    async getJob(req) {
      const job = await repo.get(req.accountId, req.jobId);
      if (!job || job.kind === 'probe') throw Errors.jobNotFound();
      return { job: jobDetailMessage(job) };
    },
    async cancelJob(req) {
      // One atomic pending -> cancelled step: a worker's pending -> processing claim races it and exactly one wins.
      if (await repo.cancel(req.accountId, req.jobId)) return { message: `Job ${req.jobId} cancelled.` };
      const job = await repo.get(req.accountId, req.jobId);
      if (!job || job.kind === 'probe') throw Errors.jobNotFound();
      throw Errors.cannotCancel(job.status);
    },
    async listJobs(req) {
      const statuses = req.statuses.map((s) => {
        const name = statusName(s);
        if (!name)
          throw Errors.invalidRequest('status must be a comma-separated list of pending, processing, completed, failed, cancelled');
        return name;
      });
      const limit = req.limit || 20;
      const { jobs, total } = await repo.list(req.accountId, { statuses, limit, offset: req.offset, ascending: req.ascending });
      return { jobs: jobs.map(jobMessage), total };
    },
    async processSync(req, ctx) {
      if (!req.task) throw Errors.taskRequired();
      // ctx.signal: the gateway cancels the call when its client hangs up; the run stops there.
      const done = await processSync(deps, { accountId: req.accountId, keyId: req.keyId }, planTask(req.task), ctx.signal, req.task);
      return {
        requestId: done.requestId,
        result: done.result.map((r) => ({ fileName: r.fileName, sizeBytes: BigInt(r.sizeBytes), downloadUrl: r.downloadUrl })),
        usage: done.usage,
        amountUsd: done.amountUsd,
      };
    },
    /** Work run by another service (probes) counts toward the account's jobs in progress. */
    async admitJob(req) {
      // With an owner that renews it, a short lease; else (an older caller) twice the time limit.
      const leaseMs = req.owner && deps.admissions ? deps.admissions.leaseMs : 2 * deps.timeoutMs;
      const job = newJobDoc(
        { accountId: req.accountId, keyId: req.keyId },
        'probe',
        'processing',
        { inputCount: 1, outputCount: 0 },
        {
          leaseUntil: admissionLease(leaseMs),
          ...(req.owner ? { owner: req.owner } : {}),
        },
      );
      if (!(await repo.admit(job, deps.parallelJobs))) throw Errors.tooManyJobs(deps.busyRetryAfterSec, deps.parallelJobs);
      return { jobId: job._id };
    },
    /** Completed or failed records the outcome; anything else (a refused request) removes the admission. */
    async finishJob(req) {
      if (req.status === JobStatus.COMPLETED || req.status === JobStatus.FAILED) {
        await repo.finish(req.jobId, ['processing'], {
          status: req.status === JobStatus.COMPLETED ? 'completed' : 'failed',
          error: req.error ?? null,
          usage: req.usage
            ? {
                timeSec: req.usage.timeSec,
                inputSizeGb: req.usage.inputSizeGb,
                outputSizeGb: req.usage.outputSizeGb,
                gbSec: req.usage.gbSec,
              }
            : null,
          amountUsd: req.amountUsd ?? null,
        });
      } else {
        await repo.removeIfOwned(req.accountId, req.jobId);
      }
      return {};
    },
    async renewAdmissions(req) {
      if (!req.owner) throw Errors.invalidRequest('owner is required');
      if (req.jobIds.length > 0)
        await repo.renewAdmissions(req.owner, req.jobIds.slice(0, 10_000), admissionLease(deps.admissions?.leaseMs ?? 2 * deps.timeoutMs));
      return {};
    },
    async countActiveJobs(req) {
      return { active: await repo.countActive(req.accountId), limit: deps.parallelJobs };
    },
  };
}
