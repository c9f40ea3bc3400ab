// Stage 3: the job's fresh work directory, every input the plan reads staged into it (a hard
// link, a stream from Storage, or the SSRF-safe fetcher) and checked against the demuxer
// allow-list, under a deadline of its own (JOB_STAGING_TIMEOUT_SEC).
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { stagePlan, type ResolvedPlanInput, type StagedPlan, type StagingDeps } from '@media/media';
import { Errors, rethrowNoSpace, type DiskReserve, type Logger } from '@media/platform';

export const DEFAULT_STAGING_TIMEOUT_MS = 600_000;

export interface StageInputsDeps extends StagingDeps {
  logger: Logger;
  workRoot: string;
  /** The free-space reserve of workRoot's disk: staging and outputs wait (async) or 503 (sync) below it. */
  disk?: DiskReserve;
  /** Fetching and checking a task's inputs ends with Errors.stagingTimedOut past this (JOB_STAGING_TIMEOUT_SEC). */
  stagingTimeoutMs?: number;
}

export interface StageRequest {
  accountId: string;
  jobId: string;
  resolved: ResolvedPlanInput[];
  signal?: AbortSignal | undefined;
}

/** A job's work directory with every file the plan reads staged in it and checked against the allow-list. */
export interface Staged {
  workDir: string;
  resolved: ResolvedPlanInput[];
  staged: StagedPlan;
}

/** Makes the job's work directory, stages and probes every input into it; removes it on failure. */
export async function stageInputs(deps: StageInputsDeps, req: StageRequest): Promise<Staged> {
  const { accountId, jobId, resolved, signal } = req;
  await mkdir(deps.workRoot, { recursive: true });
  // Inputs and outputs need room: none is taken from the reserve the stores write in.
  await deps.disk?.assertRoom();
  const workDir = await mkdtemp(join(deps.workRoot, `${jobId}-`)).catch(rethrowNoSpace);
  // A deadline of its own, minutes rather than the job's hour: a stalled input ends here.
  const limitMs = deps.stagingTimeoutMs ?? DEFAULT_STAGING_TIMEOUT_MS;
  const deadline = AbortSignal.timeout(limitMs);
  try {
    const both = signal ? AbortSignal.any([signal, deadline]) : deadline;
    const staged = await stagePlan(deps, accountId, resolved, { workDir, logger: deps.logger, signal: both });
    if (deadline.aborted && !signal?.aborted) throw Errors.stagingTimedOut(Math.round(limitMs / 1000));
    return { workDir, resolved, staged };
  } catch (err) {
    await removeStaged({ workDir });
    if (deadline.aborted && !signal?.aborted) throw Errors.stagingTimedOut(Math.round(limitMs / 1000));
    rethrowNoSpace(err);
  }
}

/** Removes the job's work directory and everything in it (inputs, outputs, fontconfig's cache). */
export const removeStaged = (staged: Pick<Staged, 'workDir'>): Promise<void> => rm(staged.workDir, { recursive: true, force: true });
