// The async worker: stages pending jobs' inputs holding no slot (stage-ahead.ts), claims a staged
// job when its account can get a slot (slots.ts, which may stop another account's run), keeps a
// lease on each while it runs (a worker that dies stops renewing it), and requeues jobs whose
// lease expired. A job that
// lost its worker too often ends failed; completion is idempotent, and so is the charge (keyed by
// job id), so a job is never charged twice. A dependency outage (MongoDB, NATS, S3, a service
// down) never fails a job: the worker keeps it and tries again once the dependency is back.
import { JobKind } from '@media/proto/media/jobs/v1/jobs_pb.js';
import {
  contextFrom,
  DomainError,
  Errors,
  Events,
  inSpan,
  isRetryableFault,
  newId,
  type Logger,
  spanFailed,
  subscribeEvent,
} from '@media/platform';
import type { Dispatch } from './dispatch.js';
import { admissionLease, INTERRUPTED_ERROR, renewEveryMs, type JobDoc } from './job-doc.js';
import { jobPlan } from './plan.js';
import { execute, type ProcessDeps } from './process.js';
import { completedFields } from './stages/record.js';
import { createStageAhead, type StagedAhead } from './stage-ahead.js';
import { pause, retryDelay } from './outage-retry.js';
import { resolvePlan } from '@media/media';
import { clearJob, clearRun } from './split-parts/distribute.js';
import { runRemotePart } from './split-parts/remote-part.js';
import { StagedRuns } from './split-parts/staged-runs.js';
import { removeStaged } from './stages/stage-inputs.js';

export interface WorkerOptions {
  leaseMs: number;
  /** Backstop scan for pending jobs and expired leases. */
  scanIntervalMs: number;
  /** Starts of one job (its worker died each time) before it ends failed. */
  maxAttempts: number;
  /** Stagings beyond the free slots: pending jobs staged ahead while every slot is busy (0: none). */
  stageAhead: number;
  /** Test hook: a sync request or probe the scan released (its lease lapsed), and when. */
  onAdmissionReleased?: (job: JobDoc, at: Date) => void;
}

export type Finished = (job: JobDoc) => Promise<void>;

/** The job is no longer this run's (its lease lapsed during an outage and it was requeued). */
class Superseded extends Error {}

/**
 * A retry after ffmpeg ran (a disk short of its reserve mid-run is an outage): the slot went with
 * that run, so the job goes back to the queue to be staged and given a slot again, not rerun here.
 */
class RequeueAfterRun extends Error {}

/** The abort reason of a run stopped to give its slot to another account (slots.ts, rule 2). */
const PREEMPTED = Symbol('preempted');
/** After a part of another worker's job met a dependency outage, this worker takes none for this long. */
const PART_OUTAGE_PAUSE_MS = 5000;
/** How long after its time limit a run's parts are swept, if its worker did not remove them. */
const PART_SWEEP_MARGIN_MS = 60_000;

export function startWorker(deps: ProcessDeps, dispatch: Dispatch, opts: WorkerOptions, onFinished: Finished) {
  const workerId = newId('w_', 12);
  const logger: Logger = deps.logger;
  const running = new Map<string, AbortController>();
  let stopped = false;
  let pumping: Promise<void> | null = null;
  // Everything in flight (runs with their final bookkeeping, claims, scans): stop() waits for it,
  // so nothing touches the store after the service closes it.
  const inFlight = new Set<Promise<unknown>>();
  const track = <T>(p: Promise<T>): Promise<T> => {
    inFlight.add(p);
    void p.finally(() => inFlight.delete(p)).catch(() => undefined);
    return p;
  };
  const ahead = createStageAhead(deps, {
    ahead: opts.stageAhead,
    workerId,
    leaseMs: opts.leaseMs,
    track,
    settled: () => void pump(),
    fail: (job, error) => failStaged(job, error),
  });

  // A split job's parts take no extra slot while a staged job waits for one (part-slots.ts).
  deps.othersWaiting = () => ahead.ready().length > 0;
  // The parts of the runs this process splits (sync ones too) are this worker's: it encodes them
  // in its own slots and leaves them out when it takes other workers' parts.
  if (deps.splitParts) deps.splitParts.ownerId = workerId;
  /** Other workers' parts encoding here, and their runs' inputs staged here. */
  const remoteParts = new Set<AbortController>();
  const stagedRuns = new StagedRuns(removeStaged);
  let partsPausedUntil = 0;
  // A sync run's slot freed: a job stopped for it may be staged again, and a queued job may start
  // (an async run lifts the hold itself once its job is recorded, and pumps). A part's extra slot
  // freed: a queued job may start in it.
  deps.slots.onRelease = (claim) => {
    if (claim.kind === 'async' || stopped) return;
    if (claim.kind === 'sync') ahead.unhold();
    void pump();
  };

  /** Whether this run still holds the job; true when the store cannot tell (it is down too). */
  async function stillOurs(job: JobDoc): Promise<boolean> {
    const now = await deps.repo.byId(job._id).catch(() => undefined);
    if (now === undefined) return true;
    return now !== null && now.status === 'processing' && now.workerId === workerId && now.attempts === job.attempts;
  }

  /**
   * Runs a step of the job; a dependency outage fails it only after the job's time limit: until
   * then the worker keeps the job (its lease still renewed), waits and runs the step again. Stops
   * early when the worker stops (the job is handed back) or the job is no longer this run's.
   */
  function persistence(job: JobDoc, signal: AbortSignal, deadline: number) {
    return async <T>(step: () => Promise<T>): Promise<T> => {
      for (let attempt = 0; ; attempt++) {
        try {
          return await step();
        } catch (err) {
          if (!isRetryableFault(err) || signal.aborted || Date.now() >= deadline) throw err;
          if (attempt === 0)
            logger.warn({ jobId: job._id, error: (err as Error).message }, 'a dependency is unavailable: the job waits and tries again');
          await pause(retryDelay(attempt, deadline), signal);
          if (signal.aborted) throw err;
          if (!(await stillOurs(job))) throw new Superseded();
        }
      }
    };
  }

  /** A run continues the trace of the request that submitted the job, however much later. */
  const run = (job: JobDoc, abort: AbortController, release: () => void, stagedAhead?: StagedAhead): Promise<void> =>
    inSpan(
      'job run',
      { 'media.job_id': job._id, 'media.attempt': job.attempts ?? 0 },
      () => runJob(job, abort, release, stagedAhead),
      contextFrom(job.trace),
    );

  async function runJob(job: JobDoc, abort: AbortController, release: () => void, stagedAhead?: StagedAhead): Promise<void> {
    let pre = stagedAhead;
    // Stopping the run stops a staging it is still waiting for (a slow URL, say).
    const stopStaging = () => pre?.stop();
    abort.signal.addEventListener('abort', stopStaging);
    running.set(job._id, abort);
    let progress: JobDoc['progress'] = null;
    const beat = setInterval(() => {
      void deps.repo.heartbeat(job._id, workerId, new Date(Date.now() + opts.leaseMs), progress).catch(() => undefined);
      // Every second: GET /job shows fresh progress; the lease is renewed well before it lapses.
    }, renewEveryMs(opts.leaseMs));
    const deadline = Date.now() + deps.timeoutMs;
    const persist = persistence(job, abort.signal, deadline);
    let finished = false;
    let ranFfmpeg = false;
    try {
      const who = { accountId: job.accountId, keyId: job.keyId };
      const task = jobPlan(job);
      // An outage before ffmpeg has run (reading inputs) runs the task again from the start;
      // after it, execute retries each remaining step in place (persist).
      const done = await persist(async () => {
        if (ranFfmpeg) throw new RequeueAfterRun();
        // Staged ahead: used once; a second try after an outage stages afresh.
        const staged = (await pre?.result) ?? undefined;
        pre = undefined;
        const resolved = staged?.resolved ?? (await resolvePlan(deps, who.accountId, task));
        return execute(deps, who, job._id, task, resolved, {
          kind: JobKind.ASYNC,
          staged,
          signal: abort.signal,
          deadline,
          onProgress: (p) => (progress = { percent: Math.round(p.percent * 10) / 10, fps: p.fps, speed: p.speed, etaSec: p.etaSec }),
          persist,
          // The next job's ffmpeg starts while this one's outputs are stored and charged. A run
          // stopped for this one is staged again only once this job is recorded (finally, below):
          // its restart (ffprobe, a fork) would otherwise slow this job's last steps.
          ffmpegDone: () => {
            ranFfmpeg = true;
            release();
            void pump();
          },
        });
      });
      finished = await persist(() => deps.repo.finish(job._id, ['processing'], completedFields(done), workerId));
    } catch (err) {
      if (err instanceof Superseded) return; // whoever holds it now finishes it
      if (abort.signal.reason === PREEMPTED || err instanceof RequeueAfterRun) {
        // Its slot went to another account (or with a run that met a full disk): back to the
        // queue, not counted as a start; it runs again from the start later, only that run charged.
        const why = err instanceof RequeueAfterRun ? 'after its run met a full disk' : 'to give its slot to another account';
        if (await handBack(job)) logger.info({ jobId: job._id, accountId: job.accountId }, `stopped and requeued a job ${why}`);
        return;
      }
      if (stopped && abort.signal.aborted) {
        // Shutting down: hand the job back so another worker (or this one, restarted) runs it.
        await deps.repo.requeue(job._id, workerId).catch(() => undefined);
        return;
      }
      // An outage that outlasted the job's time limit fails it with the 503 text.
      const outage = isRetryableFault(err);
      const error = err instanceof DomainError ? err.message : outage ? Errors.dependencyDown().message : Errors.internal().message;
      if (!(err instanceof DomainError) && !outage) logger.error({ err, jobId: job._id }, 'async job failed unexpectedly');
      spanFailed(error);
      // If even this fails (the store is down) the lease lapses and the job is run again.
      finished = await deps.repo.finish(job._id, ['processing'], { status: 'failed', error }, workerId).catch((e) => {
        logger.error({ err: e, jobId: job._id }, 'could not record a failed job; it will be retried');
        return false;
      });
    } finally {
      void pre?.discard(); // not used (the task failed before its staging was)
      abort.signal.removeEventListener('abort', stopStaging);
      clearInterval(beat);
      running.delete(job._id);
      release();
      if (abort.signal.reason !== PREEMPTED) ahead.unhold();
      // The freed slot takes the next job now, not after this one's webhook bookkeeping.
      void pump();
      // The run that moved the job to its final state sends the webhook.
      const final = finished ? await deps.repo.byId(job._id).catch(() => null) : null;
      if (final) await onFinished(final).catch(() => undefined);
    }
  }

  /**
   * Back to the queue without counting a start (its slot went to another account, or never came):
   * staged and run again later. False when the job was no longer this worker's.
   */
  async function handBack(job: JobDoc): Promise<boolean> {
    if (!(await deps.repo.requeuePreempted(job._id, workerId).catch(() => null))) return false;
    if (!stopped) await dispatch.send(job._id, job.accountId).catch(() => undefined);
    return true;
  }

  /** A staging failed with the user's error: the job ends failed with it (its inputs are not fetched again). */
  async function failStaged(job: JobDoc, error: string): Promise<void> {
    if (!(await deps.repo.finish(job._id, ['pending'], { status: 'failed', error }))) return; // cancelled meanwhile
    const final = await deps.repo.byId(job._id).catch(() => null);
    if (final) await onFinished(final).catch(() => undefined);
  }

  /**
   * Starts the next staged job whose account can get a slot (slots.ts), in the queue's fair order:
   * the accounts running the fewest jobs (counted in the store, so a job still storing its outputs
   * counts, and across replicas) first, then the oldest. False when there is none.
   */
  async function startOne(): Promise<boolean> {
    const staged = ahead.ready();
    if (staged.length === 0 || stopped) return false;
    const load = await deps.repo.runningByAccount().catch(() => new Map<string, number>());
    const ready = staged.sort((a, b) => (load.get(a.accountId) ?? 0) - (load.get(b.accountId) ?? 0) || +a.createdAt - +b.createdAt);
    const next = ready.find((j) => deps.slots.available({ accountId: j.accountId, kind: 'async' }));
    if (!next || stopped) return false;
    const abort = new AbortController();
    const preempt = () => {
      // This worker stages it again once one of its slots frees, not while the run that took
      // its slot starts (its account holds more slots than that run's anyway).
      ahead.hold(next._id);
      abort.abort(PREEMPTED);
    };
    // Claimed before the slot is taken: a slot taken from another account's run (stopped at once)
    // is never taken for a job that was cancelled or another replica took meanwhile.
    const staging = ahead.take(next._id);
    const job = await deps.repo.claim(workerId, new Date(Date.now() + opts.leaseMs), next._id).catch(() => null);
    ahead.claimed(next._id);
    const release = job && !stopped ? deps.slots.tryAcquire({ accountId: next.accountId, kind: 'async', preempt }) : null;
    if (!job || !release) {
      // Cancelled meanwhile, taken by another replica, claimed while stopping, or its slot went
      // to a sync request during the claim: handed back, staged again later.
      if (job) await handBack(job);
      void staging?.discard();
      return !stopped && job === null;
    }
    void track(run(job, abort, release, staging));
    return true;
  }

  /**
   * A part of another worker's split job, in a slot free here (issue 42, item 3): only when no job
   * staged here waits for a slot (jobs first, so parts never crowd out another account's job),
   * in fair order across accounts (jobs and parts running, counted across replicas).
   */
  async function startPart(): Promise<boolean> {
    const split = deps.splitParts;
    if (!split || stopped || Date.now() < partsPausedUntil) return false;
    if (ahead.ready().length > 0 || deps.slots.inUse >= deps.slots.capacity) return false;
    const load = async () => {
      const [jobs, parts] = await Promise.all([deps.repo.runningByAccount(), split.parts.processingByAccount()]);
      for (const [account, n] of parts) jobs.set(account, (jobs.get(account) ?? 0) + n);
      return jobs;
    };
    const doc = await split.parts.claimOther(workerId, new Date(Date.now() + split.leaseMs), load).catch(() => null);
    if (!doc) return false;
    const release = stopped ? null : deps.slots.tryAcquireFree({ accountId: doc.accountId, kind: 'part' });
    if (!release) {
      await split.parts.release(doc._id, workerId, { uncounted: true }).catch(() => undefined);
      return false;
    }
    const abort = new AbortController();
    remoteParts.add(abort);
    void track(
      runRemotePart({ ...deps, splitParts: split }, { doc, workerId, stagedRuns, signal: abort.signal })
        .then((how) => {
          if (how === 'outage') partsPausedUntil = Date.now() + PART_OUTAGE_PAUSE_MS;
        })
        .finally(() => {
          remoteParts.delete(abort);
          release(); // wakes the pump (onRelease)
        }),
    );
    return true;
  }

  /**
   * Stages pending jobs (no slot held: stage-ahead.ts) and starts the staged ones while slots
   * are to be had: one pump at a time; a call during one makes it go round again.
   */
  let again = false;
  function pump(): Promise<void> {
    if (stopped) return Promise.resolve();
    if (pumping) {
      again = true;
      return pumping;
    }
    const p = (async () => {
      do {
        again = false;
        await ahead.fill();
        while (await startOne());
        while (await startPart());
      } while (again && !stopped);
    })().finally(() => {
      pumping = null;
    });
    track(p);
    pumping = p;
    return p;
  }

  /**
   * Jobs whose worker died: back to the queue, or failed after too many starts. Sync requests and
   * probes whose process stopped: failed, so they no longer count against the account's limit.
   */
  async function reap(): Promise<void> {
    for (const job of await deps.repo.expiredAdmissions(new Date())) {
      // One this process still runs: its renewal came late (a busy event loop, a slow store), it
      // did not die. Renewed now rather than failed under its run.
      const own = deps.admissions;
      if (own?.keeper.holds(job._id)) {
        await deps.repo.renewAdmissions(own.owner, [job._id], admissionLease(own.leaseMs)).catch(() => undefined);
        continue;
      }
      if (await deps.repo.finish(job._id, ['processing'], { status: 'failed', error: INTERRUPTED_ERROR })) {
        logger.warn({ jobId: job._id, kind: job.kind }, 'released a sync request or probe that was never finished');
        // A split sync run's parts are left to its deadline (sweepParts): its process may only be late.
        opts.onAdmissionReleased?.(job, new Date());
      }
    }
    for (const job of await deps.repo.expiredLeases(new Date())) {
      if ((job.attempts ?? 0) >= opts.maxAttempts) {
        if (
          await deps.repo.finish(
            job._id,
            ['processing'],
            { status: 'failed', error: 'The worker running this job stopped; it was not retried again.' },
            job.workerId ?? undefined,
          )
        ) {
          await clearParts(job);
          const final = await deps.repo.byId(job._id);
          if (final) await onFinished(final).catch(() => undefined);
        }
      } else {
        // The dead run's parts first (before another worker's run of the job makes its own): no
        // worker should encode them now.
        await clearParts(job);
        if (await deps.repo.requeue(job._id, job.workerId)) {
          logger.warn({ jobId: job._id, attempts: job.attempts }, 'requeued a job whose worker stopped');
          await dispatch.send(job._id, job.accountId).catch(() => undefined);
        }
      }
    }
    await sweepParts();
  }

  /** The parts of the runs a dead worker split for `job`. */
  async function clearParts(job: JobDoc): Promise<void> {
    if (deps.splitParts && job.workerId)
      await clearJob({ parts: deps.splitParts.parts, storage: deps.storage, logger }, job._id, job.workerId).catch(() => undefined);
  }

  /** Runs past their time limit (plus a margin for their own clean-up) that still have parts: their worker died. */
  async function sweepParts(): Promise<void> {
    if (!deps.splitParts) return;
    const split = { parts: deps.splitParts.parts, storage: deps.storage, logger };
    for (const run of await split.parts.expiredRuns(new Date(Date.now() - PART_SWEEP_MARGIN_MS)).catch(() => []))
      await clearRun(split, run.jobId, run.runId);
  }

  const timer = setInterval(() => {
    if (stopped) return;
    void track(
      reap().then(
        () => pump(),
        (err) => logger.error({ err }, 'job scan failed'),
      ),
    );
  }, opts.scanIntervalMs);
  timer.unref();
  const subscription = dispatch.onJob(async () => {
    await pump();
  });
  void subscription.then(() => pump());
  // Parts offered by any replica's split run: a broadcast, every worker looks for a free slot.
  const offers = deps.splitParts
    ? subscribeEvent(deps.bus, Events.partsOffered, async () => void pump()).catch((err: unknown) => {
        logger.warn({ err }, 'not told of offered parts: they are found by the scan');
        return null;
      })
    : Promise.resolve(null);

  return {
    workerId,
    /** A job was just queued here: take it if a slot is free. */
    wake: () => void pump(),
    /** Resolves once the pump under way (its stagings started, its jobs claimed) is done; tests wait on it. */
    idle: (): Promise<void> => pumping ?? Promise.resolve(),
    async stop(): Promise<void> {
      stopped = true;
      clearInterval(timer);
      await (await subscription).stop();
      await (await offers)?.stop();
      for (const abort of running.values()) abort.abort();
      for (const abort of remoteParts) abort.abort();
      await ahead.clear();
      while (inFlight.size) await Promise.allSettled([...inFlight]);
      await stagedRuns.clear();
    },
  };
}

export type Worker = ReturnType<typeof startWorker>;
