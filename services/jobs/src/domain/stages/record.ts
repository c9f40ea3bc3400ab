// Stage 7 of a sync run: its end recorded in the job's record. A failure is recorded failed (or,
// for a request that was not a job that ran, the record removed); a completion that meets the
// store down is recorded once it is back, in the background (it was charged: the answer stands).
import { cancelledByShutdown, DomainError, Errors, isRetryableFault, type Logger } from '@media/platform';
import type { Background } from '../background.js';
import type { Admissions } from '../admissions.js';
import type { JobDoc } from '../job-doc.js';
import { pause, retryDelay } from '../outage-retry.js';
import type { JobsRepository } from '../ports.js';
import type { Admission } from './admit.js';
import type { Charged } from './charge.js';

// The call was cancelled by the gateway: its client hung up, or the gateway was shutting down past its grace period.
const CANCELLED_ERROR =
  'The request was cancelled before the result was ready (the client closed the connection, or the service was shutting down); nothing was charged.';

export interface RecordDeps {
  repo: JobsRepository;
  logger: Logger;
  timeoutMs: number;
  /** Where a sync job's completion is recorded after its answer when the store is down. */
  background?: Background;
  admissions?: Admissions;
}

const isClientError = (err: unknown) => err instanceof DomainError && err.status < 500;

/**
 * Records a failed run and throws its error. A request the user must change (400/403/404), or one
 * that found no slot, is not a job that ran: it leaves no trace. The answer is the task's error
 * whatever happens to this record (its lease releases it).
 */
export async function recordFailed(deps: RecordDeps, admission: Admission, err: unknown, signal?: AbortSignal): Promise<never> {
  const { job } = admission;
  const error = signal?.aborted ? CANCELLED_ERROR : err instanceof DomainError ? err.message : Errors.internal().message;
  const settle =
    isClientError(err) || admission.missedSlot
      ? deps.repo.remove(job._id)
      : deps.repo.finish(job._id, ['processing'], { status: 'failed', error });
  await settle.catch((e: unknown) => deps.logger.error({ err: e, jobId: job._id }, 'could not record the failed sync job'));
  // Stopped by this service's shutdown at whatever step (a download, ffprobe, ffmpeg).
  throw cancelledByShutdown(signal) ?? err;
}

/** Records a charged run completed; a failure to do so must not turn the answer into an error. */
export async function recordCompleted(
  deps: RecordDeps,
  job: JobDoc,
  done: Charged & { result: JobDoc['result']; parts: number },
): Promise<void> {
  const completed: Partial<JobDoc> = { ...completedFields(done) };
  await deps.repo.finish(job._id, ['processing'], completed).catch((e: unknown) => {
    if (isRetryableFault(e) && deps.background) {
      // Its lease is renewed while the record waits for the store (once back, before it lapses).
      deps.admissions?.keeper.hold(job._id);
      deps.background.track(recordLater(deps, deps.background.signal, job, completed).finally(() => deps.admissions?.keeper.drop(job._id)));
    } else deps.logger.error({ err: e, jobId: job._id }, 'could not record the completed sync job');
  });
}

/**
 * Records a charged sync job's completion once the store is back, for up to twice the time limit,
 * its lease renewed meanwhile. If the lease lapsed during the outage, a job scan may have marked
 * it interrupted first (the record then disagrees with the charge, which the log says).
 */
async function recordLater(deps: RecordDeps, signal: AbortSignal, job: JobDoc, completed: Partial<JobDoc>): Promise<void> {
  const until = Date.now() + 2 * deps.timeoutMs;
  deps.logger.warn({ jobId: job._id }, 'the store is unavailable: the completed sync job is recorded once it is back');
  for (let attempt = 0; ; attempt++) {
    const waitMs = retryDelay(attempt, until);
    deps.logger.debug({ jobId: job._id, waitMs }, 'the completed sync job is written again after a wait');
    await pause(waitMs, signal);
    if (signal.aborted || Date.now() >= until) break;
    try {
      await deps.repo.finish(job._id, ['processing'], completed);
      return;
    } catch (err) {
      if (!isRetryableFault(err)) {
        deps.logger.error({ err, jobId: job._id }, 'could not record the completed sync job');
        return;
      }
    }
  }
  deps.logger.error(
    { jobId: job._id },
    'could not record the completed sync job (charged) before the service stopped or its lease ran out',
  );
}

/** What a completed job's record holds of its run (sync and async alike). */
export function completedFields(done: Charged & { result: JobDoc['result']; parts: number }): Partial<JobDoc> {
  return {
    status: 'completed',
    result: done.result,
    usage: done.usage,
    amountUsd: done.amountUsd,
    ...(done.parts > 1 ? { splitParts: done.parts } : {}),
  };
}
