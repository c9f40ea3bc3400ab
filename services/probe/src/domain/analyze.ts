// One probe, the way Jobs runs a sync task: inputs resolved (404/403/400) before anything is
// admitted, then admission by Jobs (the account's 50 jobs in progress, probes included), staging
// into a fresh work directory, the demuxer allow-list (probeInput), ffprobe in its sandbox, and a
// charge keyed by the request id. A refused request (4xx) leaves no admission behind; a failure
// (500) is recorded as a failed job and charged nothing.
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Code, ConnectError, type Client } from '@connectrpc/connect';
import { JobKind, JobStatus, type JobsService } from '@media/proto/media/jobs/v1/jobs_pb.js';
import type { EventBus } from '@media/eventbus';
import {
  computeUsage,
  probeStaged,
  resolveInputs,
  runFfprobe,
  stageInput,
  type ProbeSpec,
  type StagingDeps,
  type TaskInput,
  type UsageFigures,
} from '@media/media';
import {
  cancelledByShutdown,
  DomainError,
  Errors,
  publishCharge,
  rethrowNoSpace,
  toHttpError,
  type DiskReserve,
  type LeaseKeeper,
  type Logger,
} from '@media/platform';
import { ffprobeArgs } from './ffprobe-args.js';
import { pickSections } from './result.js';

export interface AnalyzeDeps extends StagingDeps {
  jobs: Client<typeof JobsService>;
  /** This process's name for the admissions it runs, and their lease renewals (admission-owner.ts). */
  admissions?: { owner: string; keeper: LeaseKeeper };
  bus: EventBus;
  logger: Logger;
  workRoot: string;
  /** The free-space reserve of workRoot's disk: staging below it answers 503. */
  disk?: DiskReserve;
}

export interface Principal {
  accountId: string;
  keyId: string;
}

export interface ProbeTarget {
  input: TaskInput;
  /** As the caller wrote it: reported as format.filename. */
  filePath: string;
  spec: ProbeSpec;
}

export interface Analyzed {
  requestId: string;
  result: Record<string, unknown>;
  usage: UsageFigures;
  amountUsd: number;
}

export async function analyze(deps: AnalyzeDeps, who: Principal, target: ProbeTarget, signal?: AbortSignal): Promise<Analyzed> {
  const [resolved] = await resolveInputs(deps, who.accountId, [target.input]);
  const jobId = await admit(deps, who);
  deps.admissions?.keeper.hold(jobId);
  try {
    return await runAdmitted(deps, { who, jobId, target, resolved: resolved!, signal });
  } finally {
    deps.admissions?.keeper.drop(jobId);
  }
}

/** A probe admitted by Jobs (its job id), its input resolved. */
interface AdmittedProbe {
  who: Principal;
  jobId: string;
  target: ProbeTarget;
  resolved: Awaited<ReturnType<typeof resolveInputs>>[number];
  signal?: AbortSignal | undefined;
}

async function runAdmitted(deps: AnalyzeDeps, probe: AdmittedProbe): Promise<Analyzed> {
  const { who, jobId, signal } = probe;
  let done: Analyzed;
  try {
    done = await execute(deps, probe);
  } catch (err) {
    const http = toHttpError(err);
    // A request the user must change (400/403/404) is not a job that ran: leave no trace of it.
    const finish =
      http.status < 500
        ? { accountId: who.accountId, jobId, status: JobStatus.UNSPECIFIED }
        : { accountId: who.accountId, jobId, status: JobStatus.FAILED, error: http.internal ? Errors.internal().message : http.message };
    await deps.jobs.finishJob(finish).catch((e) => deps.logger.error({ err: e, jobId }, 'could not finish the probe admission'));
    // Stopped by this service's shutdown at whatever step: the caller is told to retry (503).
    throw cancelledByShutdown(signal) ?? err;
  }
  // Charged already: a failure to record completion must not turn the answer into an error.
  await deps.jobs
    .finishJob({ accountId: who.accountId, jobId, status: JobStatus.COMPLETED, usage: done.usage, amountUsd: done.amountUsd })
    .catch((e) => deps.logger.error({ err: e, jobId }, 'could not finish the probe admission'));
  return done;
}

/** Jobs' 429 is re-raised as our own error: a relayed ConnectError would lose its Retry-After. */
async function admit(deps: AnalyzeDeps, who: Principal): Promise<string> {
  try {
    return (
      await deps.jobs.admitJob({ accountId: who.accountId, keyId: who.keyId, kind: JobKind.PROBE, owner: deps.admissions?.owner ?? '' })
    ).jobId;
  } catch (err) {
    if (!(err instanceof ConnectError) || err.code !== Code.ResourceExhausted) throw err;
    const retryAfter = Number(err.metadata.get('retry-after'));
    throw new DomainError('rate_limited', err.rawMessage, Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : undefined);
  }
}

async function execute(deps: AnalyzeDeps, { who, jobId, target, resolved, signal }: AdmittedProbe): Promise<Analyzed> {
  await mkdir(deps.workRoot, { recursive: true });
  await deps.disk?.assertRoom();
  const workDir = await mkdtemp(join(deps.workRoot, `${jobId}-`)).catch(rethrowNoSpace);
  try {
    const inputBytes = await stageInput(deps, who.accountId, workDir, 0, resolved, signal).catch(rethrowNoSpace);
    // Playlists, concat lists and other reference formats are refused here, before ffprobe reads them.
    const probed = await probeStaged(deps, who.accountId, 0, resolved, { workDir, signal, logger: deps.logger });
    const run = await runFfprobe({
      workDir,
      input: { path: 'in/0', demuxer: probed.format },
      args: ffprobeArgs(target.spec),
      timeoutMs: deps.timeoutMs,
      signal,
      logger: deps.logger,
      forkServers: deps.forkServers,
    });
    const result = pickSections(run.json, target.spec, target.filePath);
    // The pricing rule of tasks, with no output: input size x ffprobe's processing time.
    const { usage, amountUsd } = computeUsage(inputBytes, 0, run.durationMs);
    await publishCharge(deps.bus, { requestId: jobId, accountId: who.accountId, keyId: who.keyId, usage, amountUsd, kind: JobKind.PROBE });
    return { requestId: jobId, result, usage, amountUsd };
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
}
