// Stage 4: ffmpeg runs the plan in its sandbox over the staged inputs, within what is left of the
// job's time limit, watched for the disk reserve, its memory cap and its speed floor.
import {
  runFfmpeg,
  runFfmpegSplit,
  plannedDurationSec,
  type ResolvedPlanInput,
  splitVerdict,
  type ForkServerPool,
  type RunBounds,
  type RunFfmpegOptions,
  type RunResult,
  type SpeedFloor,
  type TaskPlan,
} from '@media/media';
import { DomainError, Errors, type DiskReserve, type Logger } from '@media/platform';
import type { Client } from '@connectrpc/connect';
import type { StorageService } from '@media/proto/media/storage/v1/storage_pb.js';
import { partScheduler } from '../part-slots.js';
import { distributeParts } from '../split-parts/distribute.js';
import type { SplitPartsDeps } from '../split-parts/split-parts-deps.js';
import type { Slots } from '../slots.js';
import { fontEnv } from './fontconfig.js';
import type { Staged } from './stage-inputs.js';

/** The most files one task may write, whatever its plan allows. */
const MAX_TASK_FILES = 1000;

export interface RunDeps {
  logger: Logger;
  slots: Slots;
  disk?: DiskReserve;
  forkServers?: ForkServerPool;
  /** Font directories drawtext and subtitles may use (fontconfig sees only these). */
  fontDirs?: readonly string[];
  /** The least speed of a run's media time (FFMPEG_MIN_SPEED over FFMPEG_SPEED_WINDOW_SEC); none when absent. */
  speedFloor?: SpeedFloor;
  /**
   * Bounds watched while ffmpeg runs: `runs` (WORKER_CONCURRENCY) share the disk's headroom above
   * the reserve; `memoryLimitBytes` (JOB_MEMORY_LIMIT_MB) caps each run's resident memory.
   */
  runBounds?: { runs: number; memoryLimitBytes?: number };
  /** Long encodes split at keyframes and encoded in parallel (PARALLEL_ENCODE=auto); absent: never. */
  split?: { minInputSec: number; partSec: number };
  /** True while a job staged on this worker waits for a slot: a split job's parts take no other slot then. */
  othersWaiting?: () => boolean;
  /** A split job's parts on the work queue, for other replicas' free slots too (split-parts/); absent: this worker's slots only. */
  splitParts?: SplitPartsDeps;
  /** Storage: where parts encoded elsewhere are fetched from. */
  storage: Client<typeof StorageService>;
}

export interface Progress {
  percent: number;
  fps: number;
  speed: number;
  etaSec: number | null;
}

export interface RunRequest {
  /** The account the run is for: the extra slots its parts may take are claimed in its name. */
  accountId: string;
  jobId: string;
  task: TaskPlan;
  staged: Staged;
  /** What is left of the job's time limit (timeLeft). */
  timeoutMs: number;
  signal?: AbortSignal | undefined;
  onProgress?: ((p: Progress) => void) | undefined;
}

/** What is left of a job's time limit that ends at `deadline` (epoch ms); past it, "Processing timed out". */
export function timeLeft(deadline: number): number {
  const remaining = deadline - Date.now();
  if (remaining <= 0) throw Errors.timedOut();
  return remaining;
}

/** What a run gives: ffmpeg's result, and how many parts the video was encoded in (1: whole). */
export interface Ran extends RunResult {
  parts: number;
}

/** Runs the plan over the staged inputs: one ffmpeg process, or split into parts (issue 42). */
export async function run(deps: RunDeps, req: RunRequest): Promise<Ran> {
  const options = await runOptions(deps, req);
  const verdict = deps.split ? splitVerdict(req.task) : undefined;
  if (!deps.split || !verdict?.split) {
    if (verdict && !verdict.split) deps.logger.debug({ jobId: req.jobId, reason: verdict.reason }, 'runs whole: not split');
    return { ...(await runFfmpeg(options).catch((err: unknown) => ffmpegOutOfSpace(deps, err))), parts: 1 };
  }
  const splitInput = openIndex(req.task, verdict.input);
  const schedule = partScheduler({ slots: deps.slots, accountId: req.accountId, othersWaiting: deps.othersWaiting });
  const { splitParts, storage } = deps;
  const distribute = splitParts?.ownerId
    ? distributeParts(
        { ...splitParts, storage, logger: deps.logger },
        {
          jobId: req.jobId,
          accountId: req.accountId,
          workerId: splitParts.ownerId,
          plan: req.task,
          inputBlobs: inputBlobs(req.staged.resolved),
          splitInput,
          deadline: Date.now() + req.timeoutMs,
          schedule,
        },
      )
    : undefined;
  const ran = await runFfmpegSplit({
    ...options,
    splitInput,
    minInputSec: deps.split.minInputSec,
    partSec: deps.split.partSec,
    schedule,
    ...(distribute ? { distribute } : {}),
  }).catch((err: unknown) => ffmpegOutOfSpace(deps, err));
  if (ran.parts > 1) deps.logger.info({ jobId: req.jobId, parts: ran.parts }, `ran split into ${ran.parts} parts encoded in parallel`);
  else deps.logger.debug({ jobId: req.jobId, reason: ran.wholeReason }, 'runs whole: not split');
  return { durationMs: ran.durationMs, outputs: ran.outputs, parts: ran.parts };
}

/** The blobs a run's inputs were staged from, in order (a URL input: its name). */
export const inputBlobs = (resolved: ResolvedPlanInput[]): string[] => resolved.flatMap((r) => r.files.map((f) => f.blobKey ?? f.name));

/** Where plan input `index` is among the inputs ffmpeg opens (side files are staged, not opened). */
function openIndex(task: TaskPlan, index: number): number {
  return task.inputs.filter((i) => i.index < index && i.kind !== 'side').length;
}

/** The run's ffmpeg options over the staged inputs (a part encoded for another worker uses them too). */
export async function runOptions(deps: RunDeps, req: RunRequest): Promise<RunFfmpegOptions> {
  const { task, staged, onProgress } = req;
  return {
    workDir: staged.workDir,
    inputs: staged.staged.open,
    ...(task.filterComplex === undefined ? {} : { filterComplex: task.filterComplex }),
    outputs: task.outputs.map((o) => ({
      fileName: o.fileName,
      args: o.args,
      kind: o.kind,
      ...(o.kind === 'segments' ? { maxFiles: o.maxFiles } : {}),
      ...(o.report ? { report: o.report } : {}),
      ...(o.shortest ? { shortest: o.shortest } : {}),
    })),
    env: await fontEnv(staged.workDir, deps.fontDirs),
    timeoutMs: req.timeoutMs,
    maxOutputFiles: Math.min(MAX_TASK_FILES, task.maxFiles),
    logger: deps.logger,
    forkServers: deps.forkServers,
    bounds: runBounds(deps),
    signal: req.signal,
    // The plan's own length (its trims, -frames, -shortest), so a trimmed run ends near 100 %.
    durationSec: plannedDurationSec({ inputs: staged.staged.open, filterComplex: task.filterComplex, outputs: task.outputs }),
    ...(deps.speedFloor ? { speedFloor: deps.speedFloor } : {}),
    onProgress: onProgress
      ? (p) => onProgress({ percent: p.percent ?? 0, fps: p.fps ?? 0, speed: p.speed ?? 0, etaSec: p.etaSec ?? null })
      : undefined,
  };
}

/** ffmpeg stopped by a full disk (its outputs still there, so the disk still low): the service's 503. */
async function ffmpegOutOfSpace(deps: RunDeps, err: unknown): Promise<never> {
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
function runBounds(deps: RunDeps): RunBounds {
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
