// Running one task to completion: admission (50 per account), a worker slot (sync: 503 when
// none is free), staging, ffmpeg in its sandbox, outputs stored with 1-hour URLs, usage charged
// once (event keyed by the request id). Any failure is charged nothing.
import { createReadStream } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { create } from '@bufbuild/protobuf';
import { Code, ConnectError, type Client } from '@connectrpc/connect';
import {
  StoreFileHeaderSchema,
  StoreFileRequestSchema,
  type StorageService,
  type StoreFileHeader,
} from '@media/proto/media/storage/v1/storage_pb.js';
import { JobKind } from '@media/proto/media/jobs/v1/jobs_pb.js';
import type { EventBus } from '@media/eventbus';
import {
  computeUsage,
  resolvePlan,
  runFfmpeg,
  stagePlan,
  type ResolvedPlanInput,
  type RunBounds,
  type SpeedFloor,
  type StagedPlan,
  type StagingDeps,
  type TaskPlan,
  type UsageFigures,
} from '@media/media';
import {
  cancelledByShutdown,
  DomainError,
  Errors,
  inSpan,
  isRetryableFault,
  publishCharge,
  RESULT_URL_TTL_SEC,
  rethrowNoSpace,
  toTimestamp,
  type DiskReserve,
  type Logger,
} from '@media/platform';
import type { JobDoc, JobsRepository, ResultItemDoc, StoredTask } from '../adapters/repository.js';
import type { Background } from './background.js';
import type { Admissions } from './admissions.js';
import { admissionLease, newJobDoc } from './job-doc.js';
import { pause, retryDelay } from './outage-retry.js';
import { storedTask, taskSpec } from './plan.js';
import type { Slots } from './slots.js';

const MAX_TASK_FILES = 1000;

export interface ProcessDeps extends StagingDeps {
  repo: JobsRepository;
  slots: Slots;
  bus: EventBus;
  logger: Logger;
  workRoot: string;
  /** The free-space reserve of workRoot's disk: staging and outputs wait (async) or 503 (sync) below it. */
  disk?: DiskReserve;
  parallelJobs: number;
  busyRetryAfterSec: number;
  storage: Client<typeof StorageService>;
  /** Where a sync job's completion is recorded after its answer when the store is down. */
  background?: Background;
  /** Font directories drawtext and subtitles may use (fontconfig sees only these). */
  fontDirs?: readonly string[];
  /** The least speed of a run's media time (FFMPEG_MIN_SPEED over FFMPEG_SPEED_WINDOW_SEC); none when absent. */
  speedFloor?: SpeedFloor;
  /** This process's admissions (owner, renewed lease); without it, a lease of twice the time limit. */
  admissions?: Admissions;
  /**
   * Bounds watched while ffmpeg runs: `runs` (WORKER_CONCURRENCY) share the disk's headroom above
   * the reserve; `memoryLimitBytes` (JOB_MEMORY_LIMIT_MB) caps each run's resident memory.
   */
  runBounds?: { runs: number; memoryLimitBytes?: number };
  /** Fetching and checking a task's inputs ends with Errors.stagingTimedOut past this (JOB_STAGING_TIMEOUT_SEC). */
  stagingTimeoutMs?: number;
}

export const DEFAULT_STAGING_TIMEOUT_MS = 600_000;

export interface Principal {
  accountId: string;
  keyId: string;
}

export interface Processed {
  requestId: string;
  result: ResultItemDoc[];
  usage: UsageFigures;
  amountUsd: number;
}

const isClientError = (err: unknown) => err instanceof DomainError && err.status < 500;

// The call was cancelled by the gateway: its client hung up, or the gateway was shutting down past its grace period.
export const CANCELLED_ERROR =
  'The request was cancelled before the result was ready (the client closed the connection, or the service was shutting down); nothing was charged.';

/** `submitted`: the task as sent, kept in the job's record for its owner to read back (GetJob). */
export async function processSync(
  deps: ProcessDeps,
  who: Principal,
  task: TaskPlan,
  signal?: AbortSignal,
  submitted?: StoredTask,
): Promise<Processed> {
  const resolved = await resolvePlan(deps, who.accountId, task);
  const own = deps.admissions;
  const job = newJobDoc(
    who,
    'sync',
    'processing',
    { inputCount: task.inputs.length, outputCount: task.outputs.length },
    {
      leaseUntil: admissionLease(own ? own.leaseMs : 2 * deps.timeoutMs),
      ...(own ? { owner: own.owner } : {}),
      ...(submitted ? { task: storedTask(taskSpec(submitted)) } : {}),
    },
  );
  if (!(await deps.repo.admit(job, deps.parallelJobs))) throw Errors.tooManyJobs(deps.busyRetryAfterSec, deps.parallelJobs);
  own?.keeper.hold(job._id);
  try {
    return await runAdmitted(deps, who, task, resolved, job, signal);
  } finally {
    own?.keeper.drop(job._id);
  }
}

async function runAdmitted(
  deps: ProcessDeps,
  who: Principal,
  task: TaskPlan,
  resolved: Awaited<ReturnType<typeof resolvePlan>>,
  job: JobDoc,
  signal?: AbortSignal,
): Promise<Processed> {
  const busy = () => Errors.tooBusy(deps.busyRetryAfterSec);
  // A sync run is never stopped for another account (it cannot be requeued); it may stop one
  // (slots.ts). No slot to be had: answer at once, before fetching anything for a run that could not start.
  const claim = { accountId: who.accountId, kind: 'sync' } as const;
  if (!deps.slots.available(claim)) {
    await deps.repo.remove(job._id);
    throw busy();
  }
  // The slot bounds ffmpeg processes: it is taken once the inputs are staged, so a slow URL input
  // or a big upload being copied does not hold one while others wait.
  const slot: { release?: () => void; missed?: boolean } = {};
  const takeSlot = () => {
    slot.release = deps.slots.tryAcquire(claim) ?? undefined;
    if (!slot.release) {
      slot.missed = true;
      throw busy();
    }
  };
  let done: Processed;
  try {
    done = await execute(deps, who, job._id, task, resolved, { kind: JobKind.SYNC, takeSlot, ffmpegDone: () => slot.release?.(), signal });
  } catch (err) {
    // A request the user must change (400/403/404), or one that found no slot, is not a job that
    // ran: leave no trace of it. The answer is the task's error whatever happens to this record
    // (its lease releases it).
    const error = signal?.aborted ? CANCELLED_ERROR : err instanceof DomainError ? err.message : Errors.internal().message;
    const settle =
      isClientError(err) || slot.missed
        ? deps.repo.remove(job._id)
        : deps.repo.finish(job._id, ['processing'], { status: 'failed', error });
    await settle.catch((e: unknown) => deps.logger.error({ err: e, jobId: job._id }, 'could not record the failed sync job'));
    // Stopped by this service's shutdown at whatever step (a download, ffprobe, ffmpeg).
    throw cancelledByShutdown(signal) ?? err;
  } finally {
    slot.release?.();
  }
  // Charged already: a failure to record completion must not turn the answer into an error.
  const completed: Partial<JobDoc> = { status: 'completed', result: done.result, usage: done.usage, amountUsd: done.amountUsd };
  await deps.repo.finish(job._id, ['processing'], completed).catch((e: unknown) => {
    if (isRetryableFault(e) && deps.background) {
      // Its lease is renewed while the record waits for the store (once back, before it lapses).
      deps.admissions?.keeper.hold(job._id);
      deps.background.track(recordLater(deps, deps.background.signal, job, completed).finally(() => deps.admissions?.keeper.drop(job._id)));
    } else deps.logger.error({ err: e, jobId: job._id }, 'could not record the completed sync job');
  });
  return done;
}

/**
 * Records a charged sync job's completion once the store is back, for up to twice the time limit,
 * its lease renewed meanwhile. If the lease lapsed during the outage, a job scan may have marked
 * it interrupted first (the record then disagrees with the charge, which the log says).
 */
async function recordLater(deps: ProcessDeps, signal: AbortSignal, job: JobDoc, completed: Partial<JobDoc>): Promise<void> {
  const until = Date.now() + 2 * deps.timeoutMs;
  deps.logger.warn({ jobId: job._id }, 'the store is unavailable: the completed sync job is recorded once it is back');
  for (let attempt = 0; ; attempt++) {
    await pause(retryDelay(attempt, until), signal);
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

export interface ExecuteOptions {
  kind: JobKind;
  /** Live progress (async jobs show it on GET /job). */
  onProgress?: (p: { percent: number; fps: number; speed: number; etaSec: number | null }) => void;
  signal?: AbortSignal;
  /**
   * Runs each step after ffmpeg that must not be lost: storing the outputs, the charge. Async jobs
   * pass one that waits out a dependency outage (S3, NATS...) and runs the step again, so the job
   * is neither lost nor its ffmpeg run repeated; the steps are idempotent (outputs overwrite, the
   * charge is keyed by the job id). Default: once.
   */
  persist?: <T>(step: () => Promise<T>) => Promise<T>;
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

/** A job's work directory with every file the plan reads staged in it and checked against the allow-list. */
export interface Staged {
  workDir: string;
  resolved: ResolvedPlanInput[];
  staged: StagedPlan;
}

/** Makes the job's work directory, stages and probes every input into it; removes it on failure. */
export async function stageTask(
  deps: ProcessDeps,
  accountId: string,
  jobId: string,
  resolved: ResolvedPlanInput[],
  signal?: AbortSignal,
): Promise<Staged> {
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
    await rm(workDir, { recursive: true, force: true });
    if (deadline.aborted && !signal?.aborted) throw Errors.stagingTimedOut(Math.round(limitMs / 1000));
    rethrowNoSpace(err);
  }
}

/** fontconfig sees only the service's font directories; its cache stays in the work directory. */
async function fontEnv(workDir: string, fontDirs: readonly string[] | undefined): Promise<Record<string, string>> {
  const dirs = fontDirs ?? DEFAULT_FONT_DIRS;
  const xmlEscape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  const conf = `<?xml version="1.0"?>\n<!DOCTYPE fontconfig SYSTEM "urn:fontconfig:fonts.dtd">\n<fontconfig>\n${dirs.map((d) => `  <dir>${xmlEscape(d)}</dir>\n`).join('')}  <cachedir>${xmlEscape(join(workDir, '.cache', 'fontconfig'))}</cachedir>\n</fontconfig>\n`;
  const path = join(workDir, 'fonts.conf');
  await writeFile(path, conf);
  return { FONTCONFIG_FILE: path };
}

/** ffmpeg stopped by a full disk (its outputs still there, so the disk still low): the service's 503. */
async function ffmpegOutOfSpace(deps: ProcessDeps, err: unknown): Promise<never> {
  if (
    err instanceof DomainError &&
    err.kind === 'internal' &&
    err.message.includes('No space left on device') &&
    (await deps.disk?.isLow())
  ) {
    throw Errors.diskFull();
  }
  throw err;
}

/** What runFfmpeg watches during the run: the disk reserve shared by the slots, the memory cap. */
function runBounds(deps: ProcessDeps): RunBounds {
  const memory = deps.runBounds?.memoryLimitBytes;
  return {
    // The headroom is shared by the runs that may write at once, but a lone run is not held to a
    // WORKER_CONCURRENCY-th of it: the runs now holding slots (this one among them) and one more.
    ...(deps.disk
      ? { disk: { headroom: deps.disk.headroom, runs: Math.max(1, Math.min(deps.runBounds?.runs ?? 1, deps.slots.inUse + 1)) } }
      : {}),
    ...(memory ? { memoryLimitBytes: memory } : {}),
  };
}

export const DEFAULT_FONT_DIRS: readonly string[] = ['/usr/share/fonts'];

const once = <T>(step: () => Promise<T>): Promise<T> => step();

/** Stages, runs, stores and charges one task. Throws DomainErrors (charged nothing then). */
export async function execute(
  deps: ProcessDeps,
  who: Principal,
  jobId: string,
  task: TaskPlan,
  resolved: ResolvedPlanInput[],
  opts: ExecuteOptions = { kind: JobKind.SYNC },
): Promise<Processed> {
  const deadline = opts.deadline ?? Date.now() + deps.timeoutMs;
  // The time limit covers the whole job from here, staging included when it is done here (sync);
  // an async job's inputs are staged before it is claimed (stage-ahead.ts), under the staging deadline only.
  const span = { 'media.job_id': jobId };
  const { workDir, staged } =
    opts.staged ??
    (await inSpan('stage inputs', { ...span, 'media.inputs': resolved.length }, () =>
      stageTask(deps, who.accountId, jobId, resolved, opts.signal),
    ));
  try {
    opts.takeSlot?.();
    const remaining = deadline - Date.now();
    if (remaining <= 0) throw Errors.timedOut();
    const ffmpeg = async () =>
      runFfmpeg({
        workDir,
        inputs: staged.open,
        ...(task.filterComplex === undefined ? {} : { filterComplex: task.filterComplex }),
        outputs: task.outputs.map((o) => ({
          fileName: o.fileName,
          args: o.args,
          kind: o.kind,
          ...(o.report ? { report: o.report } : {}),
          ...(o.shortest ? { shortest: o.shortest } : {}),
        })),
        env: await fontEnv(workDir, deps.fontDirs),
        timeoutMs: remaining,
        maxOutputFiles: Math.min(MAX_TASK_FILES, task.maxFiles),
        logger: deps.logger,
        forkServers: deps.forkServers,
        bounds: runBounds(deps),
        signal: opts.signal,
        durationSec: staged.durationSec,
        ...(deps.speedFloor ? { speedFloor: deps.speedFloor } : {}),
        onProgress: opts.onProgress
          ? (p) => opts.onProgress!({ percent: p.percent ?? 0, fps: p.fps ?? 0, speed: p.speed ?? 0, etaSec: p.etaSec ?? null })
          : undefined,
      }).catch((err: unknown) => ffmpegOutOfSpace(deps, err));
    const run = await inSpan('ffmpeg', { ...span, 'media.outputs': task.outputs.length }, ffmpeg).finally(() => opts.ffmpegDone?.());
    const persist = opts.persist ?? once;
    const result = await inSpan('store outputs', { ...span, 'media.outputs': run.outputs.length }, async () => {
      const dirId = await persist(() => outputDirectory(deps, who, task));
      const stored: ResultItemDoc[] = [];
      for (const out of run.outputs) stored.push(await persist(() => storeOutput(deps, who.accountId, dirId, out)));
      return stored;
    });
    const inputBytes = staged.bytes;
    const outputBytes = run.outputs.reduce((a, o) => a + o.size, 0);
    const { usage, amountUsd } = computeUsage(inputBytes, outputBytes, run.durationMs);
    const completedAt = toTimestamp(new Date());
    await persist(() =>
      publishCharge(deps.bus, {
        requestId: jobId,
        accountId: who.accountId,
        keyId: who.keyId,
        completedAt,
        usage,
        amountUsd,
        kind: opts.kind,
      }),
    );
    return { requestId: jobId, result, usage, amountUsd };
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
}

/**
 * Where the outputs go, as ffmpeg-api.com does it: task.output_dir_id if given, else the uploaded
 * inputs' directory, else a new directory (a task of URL inputs only).
 */
async function outputDirectory(deps: ProcessDeps, who: Principal, task: TaskPlan): Promise<string> {
  if (task.outputDirId !== undefined) return task.outputDirId;
  const uploaded = task.inputs.find((i) => i.source.kind === 'uploaded')?.source;
  if (uploaded?.kind === 'uploaded') return uploaded.dirId;
  const { directory } = await deps.storage.createDirectory({ accountId: who.accountId });
  return directory!.id;
}

/**
 * Stores one finished output: in place when Storage shares this disk (StoreLocalFile: Storage
 * links or copies the file from the work directory, after checking the path lies in the Jobs work
 * directory it trusts), else streamed over RPC. Both end in the same bookkeeping in Storage.
 */
export async function storeOutput(
  deps: Pick<ProcessDeps, 'storage' | 'logger'>,
  accountId: string,
  dirId: string,
  out: { fileName: string; path: string; size: number },
): Promise<ResultItemDoc> {
  const header = create(StoreFileHeaderSchema, {
    accountId,
    dirId,
    fileName: out.fileName,
    size: BigInt(out.size),
    overwrite: true,
    downloadExpiresInSeconds: RESULT_URL_TTL_SEC,
  });
  try {
    const stored = (await storeInPlace(deps, header, resolve(out.path))) ?? (await deps.storage.storeFile(streamed(header, out.path)));
    return { fileName: out.fileName, sizeBytes: Number(stored.download!.fileSize), downloadUrl: stored.download!.url };
  } catch (err) {
    // The directory expired (or was deleted) while the job ran: the user's doing, not a fault.
    if (err instanceof ConnectError && err.code === Code.NotFound && err.rawMessage === Errors.directoryNotFound().message)
      throw directoryGone();
    throw err;
  }
}

export const directoryGone = () =>
  new DomainError(
    'not_found',
    `${Errors.directoryNotFound().message}: the output directory expired or was deleted while the job ran; nothing was charged`,
  );

/** After Storage declined a local store (S3, another host, an older Storage), stream for this long before asking again. */
const LOCAL_STORE_RETRY_MS = 60_000;
const localStoreDeclined = new WeakMap<object, { until: number; reason: string }>();

async function storeInPlace(deps: Pick<ProcessDeps, 'storage' | 'logger'>, header: StoreFileHeader, path: string) {
  const declined = localStoreDeclined.get(deps.storage);
  if (declined && declined.until > Date.now()) return undefined;
  try {
    return await deps.storage.storeLocalFile({ header, sourcePath: path });
  } catch (err) {
    // FAILED_PRECONDITION: this Storage cannot take it in place (nothing was stored); UNIMPLEMENTED:
    // a Storage from before StoreLocalFile. Any other answer is the store's answer, as streamed.
    if (!(err instanceof ConnectError) || (err.code !== Code.FailedPrecondition && err.code !== Code.Unimplemented)) throw err;
    localStoreDeclined.set(deps.storage, { until: Date.now() + LOCAL_STORE_RETRY_MS, reason: err.rawMessage });
    // Said once per reason (S3 deployments would otherwise log it every minute).
    if (declined?.reason !== err.rawMessage)
      deps.logger.info({ reason: err.rawMessage }, 'storing job outputs by streaming them to Storage');
    return undefined;
  }
}

async function* streamed(header: StoreFileHeader, path: string) {
  yield create(StoreFileRequestSchema, { part: { case: 'header', value: header } });
  for await (const chunk of createReadStream(path, { highWaterMark: 256 * 1024 })) {
    yield create(StoreFileRequestSchema, { part: { case: 'chunk', value: chunk as Buffer } });
  }
}
