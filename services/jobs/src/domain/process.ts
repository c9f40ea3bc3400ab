// A job run, composed of its stages (stages/*.ts), in the order docs/architecture.md numbers them:
// admit (50 per account, a slot to be had), stage inputs, run ffmpeg in its slot, store outputs
// with 1-hour URLs, charge once (an event keyed by the job id), record. Any failure is charged nothing.
import { JobKind, type Task } from '@media/proto/media/jobs/v1/jobs_pb.js';
import { resolvePlan, type ResolvedPlanInput, type TaskPlan, type UsageFigures } from '@media/media';
import { inSpan } from '@media/platform';
import type { Principal, ResultItemDoc } from './job-doc.js';
import { admit, type AdmitDeps } from './stages/admit.js';
import { charge, type ChargeDeps } from './stages/charge.js';
import { recordCompleted, recordFailed, type RecordDeps } from './stages/record.js';
import { run, timeLeft, type Progress, type RunDeps } from './stages/run.js';
import { removeStaged, stageInputs, type Staged, type StageInputsDeps } from './stages/stage-inputs.js';
import type { OutputStore, Persist } from './stages/store-outputs.js';

export interface ProcessDeps extends AdmitDeps, StageInputsDeps, RunDeps, ChargeDeps, RecordDeps {
  /** This service instance's output store (createOutputStore). */
  outputs: OutputStore;
}

export interface Processed {
  requestId: string;
  result: ResultItemDoc[];
  usage: UsageFigures;
  amountUsd: number;
  /** How many parts the video was encoded in (1: one ffmpeg process ran the task). */
  parts: number;
}

/** A sync request, run to its answer. `submitted`: the task as sent, kept in the job's record (GetJob). */
export async function processSync(
  deps: ProcessDeps,
  who: Principal,
  task: TaskPlan,
  signal?: AbortSignal,
  submitted?: Task,
): Promise<Processed> {
  const resolved = await resolvePlan(deps, who.accountId, task);
  const admission = await admit(deps, who, task, submitted); // 2. admit (docs/architecture.md's steps)
  try {
    const slot = { takeSlot: admission.takeSlot, ffmpegDone: admission.releaseSlot };
    const done = await execute(deps, who, admission.job._id, task, resolved, { kind: JobKind.SYNC, signal, ...slot }) // 3-6
      .catch((err: unknown) => recordFailed(deps, admission, err, signal)) // 7. record
      .finally(admission.releaseSlot);
    await recordCompleted(deps, admission.job, done); // 7. record
    return done;
  } finally {
    admission.end();
  }
}

export interface ExecuteOptions {
  kind: JobKind;
  /** Live progress (async jobs show it on GET /job). */
  onProgress?: (p: Progress) => void;
  signal?: AbortSignal | undefined;
  /**
   * Runs each step after ffmpeg that must not be lost: storing the outputs, the charge. Async jobs
   * pass one that waits out a dependency outage (S3, NATS...) and runs the step again, so the job
   * is neither lost nor its ffmpeg run repeated; the steps are idempotent (outputs overwrite, the
   * charge is keyed by the job id). Default: once.
   */
  persist?: Persist;
  /**
   * Called once ffmpeg has exited (or could not run). A worker slot bounds ffmpeg processes, not
   * the storing and charging after them, so the caller frees the slot here for the next job.
   */
  ffmpegDone?: () => void;
  /** Called once the inputs are staged, before ffmpeg starts: takes the slot it runs in (throws if none). */
  takeSlot?: () => void;
  /** Inputs already staged for this job (staged ahead by its worker); execute owns them from here. */
  staged?: Staged;
  /**
   * When the job's time limit ends (epoch ms); default: the limit from now. A worker that runs
   * the task again after an outage passes the first run's, so a retry does not restart the clock.
   */
  deadline?: number;
}

const once: Persist = (step) => step();

/** Stages, runs, stores and charges one task (sync or async). Throws DomainErrors (charged nothing then). */
export async function execute(
  deps: ProcessDeps,
  who: Principal,
  jobId: string,
  task: TaskPlan,
  resolved: ResolvedPlanInput[],
  opts: ExecuteOptions = { kind: JobKind.SYNC },
): Promise<Processed> {
  // The time limit covers the whole job from here, staging included when it is done here (sync);
  // an async job's inputs are staged before it is claimed (stage-ahead.ts), under the staging deadline only.
  const deadline = opts.deadline ?? Date.now() + deps.timeoutMs;
  const span = { 'media.job_id': jobId };
  const persist = opts.persist ?? once;
  // 3. stage inputs (an async job's, ahead of its claim)
  const staged =
    opts.staged ??
    (await inSpan('stage inputs', { ...span, 'media.inputs': resolved.length }, () =>
      stageInputs(deps, { accountId: who.accountId, jobId, resolved, signal: opts.signal }),
    ));
  try {
    // 4. run, in its slot
    opts.takeSlot?.();
    const timeoutMs = timeLeft(deadline);
    const ran = await inSpan('ffmpeg', { ...span, 'media.outputs': task.outputs.length }, () =>
      run(deps, { accountId: who.accountId, jobId, task, staged, timeoutMs, signal: opts.signal, onProgress: opts.onProgress }),
    ).finally(() => opts.ffmpegDone?.());
    // 5. store outputs, 6. charge
    const result = await inSpan('store outputs', { ...span, 'media.outputs': ran.outputs.length }, () =>
      deps.outputs.storeAll({ who, task, outputs: ran.outputs, persist }),
    );
    const charged = await charge(deps, { jobId, who, kind: opts.kind, inputBytes: staged.staged.bytes, ran, persist });
    return { requestId: jobId, result, ...charged, parts: ran.parts };
  } finally {
    await removeStaged(staged);
  }
}
