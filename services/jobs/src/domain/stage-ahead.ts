// Staging, outside the slots: a worker fetches and probes the inputs of pending async jobs without
// claiming them (they stay `pending`, a user can still cancel them, and no ffmpeg slot is held),
// and claims a job only once its inputs are staged and a slot is to be had. A download from S3 or
// from a URL can take as long as an encode: a slot waiting for one would be idle.
//
// Places: as many stagings (running, or staged and waiting for a slot) as the worker has free
// slots plus JOB_STAGE_AHEAD (staged ahead while every slot is busy). No account captures them
// either (as slots.ts): with none free, the account holding two more stagings than the asker
// gives up its youngest (stopped and removed; its job stays pending and is staged again later).
// Each staging has its own deadline (JOB_STAGING_TIMEOUT_SEC, stages/stage-inputs.ts).
//
// One worker stages a job: a staging lease in the job's record (JOB_LEASE_SEC, renewed while
// staged) keeps other replicas from fetching the same inputs, until it lapses (its worker died).
//
// A staging that failed is not done again: with the user's error (a URL that answers 404, an
// input refused) the job ends failed with it; an outage leaves the job pending and its staging
// is tried again after a pause. A staging whose job is no longer pending (cancelled, or another
// replica took it) is thrown away.
import { rm } from 'node:fs/promises';
import { resolvePlan } from '@media/media';
import { contextFrom, DomainError, Errors, inSpan, isRetryableFault } from '@media/platform';
import type { JobDoc } from './job-doc.js';
import { retryDelay } from './outage-retry.js';
import { jobPlan } from './plan.js';
import type { ProcessDeps } from './process.js';
import { stageInputs, type Staged } from './stages/stage-inputs.js';

/** One job's staging, running or done. */
export interface StagedAhead {
  /** The staged inputs; null when staging failed or was stopped. */
  result: Promise<Staged | null>;
  /** Stops the staging if it still runs (what it left is removed by discard, or by the run). */
  stop(): void;
  /** Stops it and removes what it left. */
  discard(): Promise<void>;
}

interface Entry extends StagedAhead {
  job: JobDoc;
  seq: number;
  /** Set once the staging succeeded. */
  ready?: Staged;
}

export interface StageAheadOptions {
  /** Stagings beyond the free slots (JOB_STAGE_AHEAD). */
  ahead: number;
  /** This worker, and the length of its staging leases. */
  workerId: string;
  leaseMs: number;
  track: <T>(p: Promise<T>) => Promise<T>;
  /** A staging ended (ready, failed or stopped): the worker may claim its job, or stage another. */
  settled: () => void;
  /** A staging failed with the user's error: the job ends failed with it. */
  fail: (job: JobDoc, error: string) => Promise<void>;
}

export function createStageAhead(deps: ProcessDeps, opts: StageAheadOptions) {
  // Insertion order is fair order at the time each was started.
  const ahead = new Map<string, Entry>();
  /** Jobs whose staging met an outage: not before this time, and how many times. */
  const outage = new Map<string, { at: number; tries: number }>();
  /** Jobs handed over whose claim is under way: still pending in the store, not to be staged again. */
  const claiming = new Set<string>();
  /** Jobs stopped to give their slot away: not staged again here until a slot frees. */
  const held = new Set<string>();
  let filling: Promise<void> | null = null;
  let refill = false;
  let seq = 0;
  const leaseUntil = () => new Date(Date.now() + opts.leaseMs);
  const drop = (jobId: string) => void deps.repo.dropStaging(jobId, opts.workerId).catch(() => undefined);
  const renewal = setInterval(
    () => {
      const ids = [...ahead.keys(), ...claiming];
      if (ids.length > 0) void deps.repo.renewStagings(ids, opts.workerId, leaseUntil()).catch(() => undefined);
    },
    Math.max(50, Math.floor(opts.leaseMs / 3)),
  );
  renewal.unref();

  const places = () => opts.ahead + Math.max(0, deps.slots.capacity - deps.slots.inUse);

  async function stage(job: JobDoc, signal: AbortSignal): Promise<Staged | null> {
    try {
      // In the job's trace: the run that uses it follows.
      const attributes = { 'media.job_id': job._id, 'media.ahead': true };
      const staged = await inSpan(
        'stage inputs',
        attributes,
        async () =>
          stageInputs(deps, {
            accountId: job.accountId,
            jobId: job._id,
            resolved: await resolvePlan(deps, job.accountId, jobPlan(job)),
            signal,
          }),
        contextFrom(job.trace),
      );
      outage.delete(job._id);
      return staged;
    } catch (err) {
      if (signal.aborted) return null; // stopped: given up for another account, or the worker stops
      if (isRetryableFault(err)) {
        const tries = (outage.get(job._id)?.tries ?? 0) + 1;
        // Tried again after 1 s, doubling, at most 30 s apart (the worker's scan wakes it).
        outage.set(job._id, { at: Date.now() + retryDelay(tries - 1, Number.POSITIVE_INFINITY), tries });
        deps.logger.warn(
          { jobId: job._id, error: (err as Error).message },
          'staging met an outage; the job stays pending and is staged again',
        );
        return null;
      }
      if (!(err instanceof DomainError)) deps.logger.error({ err, jobId: job._id }, 'staging failed unexpectedly');
      await opts.fail(job, err instanceof DomainError ? err.message : Errors.internal().message).catch(() => undefined);
      return null;
    }
  }

  function start(job: JobDoc): void {
    const abort = new AbortController();
    const result = opts.track(stage(job, abort.signal));
    const entry: Entry = {
      job,
      seq: seq++,
      result,
      stop: () => abort.abort(),
      discard: () => {
        abort.abort();
        return result.then((s) => (s ? rm(s.workDir, { recursive: true, force: true }) : undefined)).catch(() => undefined);
      },
    };
    ahead.set(job._id, entry);
    void result.then((staged) => {
      if (staged) entry.ready = staged;
      else if (ahead.get(job._id) === entry) ahead.delete(job._id); // its place is free again
      opts.settled();
    });
  }

  const countBy = (accountId: string) => [...ahead.values()].filter((e) => e.job.accountId === accountId).length;

  /** The youngest staging of the account holding two more places than `accountId`, if any. */
  function victim(accountId: string): Entry | undefined {
    const mine = countBy(accountId);
    let best: Entry | undefined;
    let bestN = -1;
    for (const e of ahead.values()) {
      if (e.job.accountId === accountId) continue;
      const n = countBy(e.job.accountId);
      if (n >= mine + 2 && (n > bestN || (n === bestN && e.seq > best!.seq))) [best, bestN] = [e, n];
    }
    return best;
  }

  /** Throws away the stagings of jobs no longer pending: they hold a place (and disk) for nothing. */
  async function prune(): Promise<void> {
    for (const id of [...outage.keys()]) {
      const job = await deps.repo.byId(id).catch(() => undefined);
      if (job !== undefined && job?.status !== 'pending') outage.delete(id);
    }
    for (const id of [...ahead.keys()]) {
      const job = await deps.repo.byId(id).catch(() => undefined);
      if (job === undefined || job?.status === 'pending') continue; // undefined: the store is down
      const entry = ahead.get(id);
      ahead.delete(id);
      await entry?.discard();
    }
  }

  /** One pass of fill: stagings for pending jobs in fair order while places are free (or one is given up). */
  async function fillOnce(): Promise<void> {
    await prune();
    // Every place taken and none to be given up (an account holding two): nothing to ask the
    // store (this runs at every dispatch, staging and run end).
    const free = places() - ahead.size;
    const counts = [...ahead.values()].map((e) => countBy(e.job.accountId));
    if (free <= 0 && !counts.some((n) => n >= 2)) return;
    const now = Date.now();
    const waiting = [...outage].filter(([, o]) => o.at > now).map(([id]) => id);
    // In the order the worker will claim them: fair across accounts.
    const skip = [...ahead.keys(), ...claiming, ...held, ...waiting];
    const staging = new Map<string, number>();
    for (const e of ahead.values()) staging.set(e.job.accountId, (staging.get(e.job.accountId) ?? 0) + 1);
    const jobs = await deps.repo.pendingFair(Math.max(1, free), skip, staging).catch(() => []);
    for (const job of jobs) {
      const given = ahead.size >= places() ? victim(job.accountId) : undefined;
      if (ahead.size >= places() && !given) continue;
      // Another replica stages it: left to that one.
      if (!(await deps.repo.takeStaging(job._id, opts.workerId, leaseUntil()).catch(() => null))) continue;
      if (given && ahead.get(given.job._id) === given) {
        ahead.delete(given.job._id);
        void given.discard();
        drop(given.job._id);
        deps.logger.info({ jobId: given.job._id }, 'stopped a staging to give its place to another account');
      }
      start(job);
    }
  }

  return {
    /** Starts stagings of pending jobs, in fair order, while places are free (or one is given up). */
    fill(): Promise<void> {
      // A call during a fill makes it go round again: what it was called for (a job requeued,
      // a hold lifted) may have come after the fill read the store.
      if (filling) {
        refill = true;
        return filling;
      }
      filling = opts.track(
        (async () => {
          do {
            refill = false;
            await fillOnce();
          } while (refill);
        })().finally(() => (filling = null)),
      );
      return filling;
    },
    /** Staged jobs waiting for a slot, oldest staging first. */
    ready(): JobDoc[] {
      return [...ahead.values()].filter((e) => e.ready).map((e) => e.job);
    },
    /** Hands over a job's staging to claim it: the caller owns its work directory from here. */
    take(jobId: string): StagedAhead | undefined {
      const entry = ahead.get(jobId);
      ahead.delete(jobId);
      claiming.add(jobId);
      return entry;
    },
    /** Keeps a job from being staged here until unhold (see held). */
    hold(jobId: string): void {
      held.add(jobId);
    },
    /** A slot freed: the jobs held may be staged again. */
    unhold(): void {
      held.clear();
    },
    /** The claim of a job taken is over (won or lost). */
    claimed(jobId: string): void {
      claiming.delete(jobId);
    },
    /** Stops every staging and removes what they left; other workers may stage their jobs at once. */
    async clear(): Promise<void> {
      await filling;
      clearInterval(renewal);
      const all = [...ahead.values()];
      ahead.clear();
      await Promise.all(all.map((e) => e.discard()));
      await Promise.all(all.map((e) => deps.repo.dropStaging(e.job._id, opts.workerId).catch(() => undefined)));
    },
  };
}
