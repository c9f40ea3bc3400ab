// The async worker: takes pending jobs while it has free slots, keeps a lease on each while it
// runs (a worker that dies stops renewing it), and requeues jobs whose lease expired. A job that
// lost its worker too often ends failed; completion is idempotent, and so is the charge (keyed by
// job id), so a job is never charged twice.
import { JobKind } from '@media/proto/media/jobs/v1/jobs_pb.js';
import { DomainError, Errors, newId, type Logger } from '@media/platform';
import type { JobDoc, JobsRepository } from '../adapters/repository.js';
import type { Dispatch } from './dispatch.js';
import { planTask } from './plan.js';
import { execute, type ProcessDeps } from './process.js';
import { resolveInputs } from '@media/media';

export interface WorkerOptions {
  leaseMs: number;
  /** Backstop scan for pending jobs and expired leases. */
  scanIntervalMs: number;
  /** Starts of one job (its worker died each time) before it ends failed. */
  maxAttempts: number;
}

export type Finished = (job: JobDoc) => Promise<void>;

export function startWorker(deps: ProcessDeps, dispatch: Dispatch, opts: WorkerOptions, onFinished: Finished) {
  const workerId = newId('w_', 12);
  const logger: Logger = deps.logger;
  const running = new Map<string, AbortController>();
  let stopped = false;
  let pumping: Promise<void> | null = null;

  async function run(job: JobDoc, release: () => void): Promise<void> {
    const abort = new AbortController();
    running.set(job._id, abort);
    let progress: JobDoc['progress'] = null;
    const beat = setInterval(() => {
      void deps.repo.heartbeat(job._id, workerId, new Date(Date.now() + opts.leaseMs), progress).catch(() => undefined);
      // Every second: GET /job shows fresh progress; the lease is renewed well before it lapses.
    }, Math.max(50, Math.min(1000, Math.floor(opts.leaseMs / 3))));
    try {
      const who = { accountId: job.accountId, keyId: job.keyId };
      const task = planTask(job.task!);
      const resolved = await resolveInputs(deps, who.accountId, task.inputs);
      const done = await execute(deps, who, job._id, task, resolved, {
        kind: JobKind.ASYNC,
        signal: abort.signal,
        onProgress: (p) => (progress = { percent: Math.round(p.percent * 10) / 10, fps: p.fps, speed: p.speed, etaSec: p.etaSec }),
      });
      await deps.repo.finish(job._id, ['processing'], { status: 'completed', result: done.result, usage: done.usage, amountUsd: done.amountUsd }, workerId);
    } catch (err) {
      if (stopped && abort.signal.aborted) {
        // Shutting down: hand the job back so another worker (or this one, restarted) runs it.
        await deps.repo.requeue(job._id, workerId).catch(() => undefined);
        return;
      }
      const error = err instanceof DomainError ? err.message : Errors.internal().message;
      if (!(err instanceof DomainError)) logger.error({ err, jobId: job._id }, 'async job failed unexpectedly');
      await deps.repo.finish(job._id, ['processing'], { status: 'failed', error }, workerId);
    } finally {
      clearInterval(beat);
      running.delete(job._id);
      release();
      const final = await deps.repo.byId(job._id);
      if (final && (final.status === 'completed' || final.status === 'failed') && final.workerId === workerId) await onFinished(final).catch(() => undefined);
      void pump();
    }
  }

  /** Claims pending jobs while slots are free. */
  function pump(jobId?: string): Promise<void> {
    if (stopped) return Promise.resolve();
    if (pumping && !jobId) return pumping;
    const p = (async () => {
      for (;;) {
        const release = deps.slots.tryAcquire();
        if (!release) return;
        const job = await deps.repo.claim(workerId, new Date(Date.now() + opts.leaseMs), jobId).catch(() => null);
        if (!job) return release();
        void run(job, release);
        if (jobId) return;
      }
    })().finally(() => {
      if (!jobId) pumping = null;
    });
    if (!jobId) pumping = p;
    return p;
  }

  /** Jobs whose worker died: back to the queue, or failed after too many starts. */
  async function reap(): Promise<void> {
    for (const job of await deps.repo.expiredLeases(new Date())) {
      if ((job.attempts ?? 0) >= opts.maxAttempts) {
        if (await deps.repo.finish(job._id, ['processing'], { status: 'failed', error: 'The worker running this job stopped; it was not retried again.' }, job.workerId ?? undefined)) {
          const final = await deps.repo.byId(job._id);
          if (final) await onFinished(final).catch(() => undefined);
        }
      } else if (await deps.repo.requeue(job._id, job.workerId)) {
        logger.warn({ jobId: job._id, attempts: job.attempts }, 'requeued a job whose worker stopped');
        await dispatch.send(job._id, job.accountId).catch(() => undefined);
      }
    }
  }

  const timer = setInterval(() => {
    void reap().then(() => pump(), (err) => logger.error({ err }, 'job scan failed'));
  }, opts.scanIntervalMs);
  timer.unref();
  const subscription = dispatch.onJob(async () => {
    await pump();
  });
  void subscription.then(() => pump());

  return {
    workerId,
    /** A job was just queued here: take it if a slot is free. */
    wake: () => void pump(),
    async stop(): Promise<void> {
      stopped = true;
      clearInterval(timer);
      await (await subscription).stop();
      for (const abort of running.values()) abort.abort();
      while (running.size) await new Promise((r) => setTimeout(r, 20));
    },
  };
}

export type Worker = ReturnType<typeof startWorker>;
