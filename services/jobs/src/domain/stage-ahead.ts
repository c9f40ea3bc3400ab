// Staging ahead: while every slot is busy, a worker stages the inputs of the next pending jobs
// (a download from S3 or from a URL can take as long as an encode) so that a freed slot starts
// ffmpeg at once. The jobs are not claimed: they stay pending, and a user can still cancel them.
// When a slot frees, the worker claims the next job in fair order and uses its staging if it has
// one; a staging whose job is no longer pending (cancelled, or another replica took it) is thrown
// away at the next fill. A staging that fails is thrown away too: the job is staged again when it
// runs, and fails then with the same error if it still applies.
import { rm } from 'node:fs/promises';
import { resolvePlan } from '@media/media';
import { contextFrom, inSpan } from '@media/platform';
import type { JobDoc } from '../adapters/repository.js';
import { jobPlan } from './plan.js';
import { stageTask, type ProcessDeps, type Staged } from './process.js';

/** One job's staging, running or done. */
export interface StagedAhead {
  /** The staged inputs; null when staging failed or was stopped. */
  result: Promise<Staged | null>;
  /** Stops the staging if it still runs (what it left is removed by discard, or by the run). */
  stop(): void;
  /** Stops it and removes what it left. */
  discard(): Promise<void>;
}

function stagedAhead(result: Promise<Staged | null>, abort: AbortController): StagedAhead {
  return {
    result,
    stop: () => abort.abort(),
    discard: () => {
      abort.abort();
      return result.then((s) => (s ? rm(s.workDir, { recursive: true, force: true }) : undefined)).catch(() => undefined);
    },
  };
}

export function createStageAhead(deps: ProcessDeps, limit: number, track: <T>(p: Promise<T>) => Promise<T>) {
  // Insertion order is claim order: oldest pending first.
  const ahead = new Map<string, StagedAhead>();
  let filling: Promise<void> | null = null;

  async function stage(job: JobDoc, signal: AbortSignal): Promise<Staged | null> {
    try {
      // In the job's trace: the run that uses it follows.
      const attributes = { 'media.job_id': job._id, 'media.ahead': true };
      return await inSpan(
        'stage inputs',
        attributes,
        async () => stageTask(deps, job.accountId, job._id, await resolvePlan(deps, job.accountId, jobPlan(job)), signal),
        contextFrom(job.trace),
      );
    } catch (err) {
      deps.logger.debug({ jobId: job._id, error: (err as Error).message }, 'staging ahead failed; the job stages again when it runs');
      return null;
    }
  }

  /** Throws away the stagings of jobs no longer pending: they hold a place (and disk) for nothing. */
  async function prune(): Promise<void> {
    for (const id of [...ahead.keys()]) {
      const job = await deps.repo.byId(id).catch(() => undefined);
      if (job === undefined || job?.status === 'pending') continue; // undefined: the store is down
      const entry = ahead.get(id);
      ahead.delete(id);
      await entry?.discard();
    }
  }

  return {
    prune,
    /** Starts staging pending jobs until `limit` are staged or being staged. */
    fill(): Promise<void> {
      if (limit === 0) return Promise.resolve();
      filling ??= track(
        (async () => {
          await prune();
          // In the order the worker will claim them: fair across accounts.
          if (ahead.size >= limit) return;
          const jobs = await deps.repo.pendingFair(limit - ahead.size, [...ahead.keys()]).catch(() => []);
          for (const job of jobs) {
            if (ahead.size >= limit || ahead.has(job._id)) continue;
            const abort = new AbortController();
            ahead.set(job._id, stagedAhead(track(stage(job, abort.signal)), abort));
          }
        })().finally(() => (filling = null)),
      );
      return filling;
    },
    /** Hands over a job's staging: the caller owns its work directory from here. */
    take(jobId: string): StagedAhead | undefined {
      const entry = ahead.get(jobId);
      ahead.delete(jobId);
      return entry;
    },
    /** Stops every staging and removes what they left. */
    async clear(): Promise<void> {
      await filling;
      const all = [...ahead.values()];
      ahead.clear();
      await Promise.all(all.map((e) => e.discard()));
    },
  };
}
