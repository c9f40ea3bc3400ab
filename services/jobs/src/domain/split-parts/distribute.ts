// The job's side of a split run spread over the workers (issue 42, item 3): its parts become
// records any Jobs replica's free slot may claim (remote-part.ts); the job's own worker claims them
// too, one part per slot it gets (part-slots.ts), and fetches the parts others encoded from Storage
// into place for the join. A part whose worker died is put back and encoded again; a part another
// worker could not stage, encode or hand over is the run's own worker's to encode. The records and
// the parts' files go when the run ends.
import type { MessageInitShape } from '@bufbuild/protobuf';
import type { Client } from '@connectrpc/connect';
import type { SplitContext, TaskPlan } from '@media/media';
import type { PartsOfferedSchema } from '@media/proto/media/events/v1/events_pb.js';
import type { StorageService } from '@media/proto/media/storage/v1/storage_pb.js';
import { DomainError, isRetryableFault, newId, type Logger } from '@media/platform';
import { renewEveryMs } from '../job-doc.js';
import type { Schedule } from '../part-slots.js';
import type { PartsRepository } from '../ports.js';
import { partId, type PartDoc } from './part-doc.js';
import { fetchPart } from './transfer.js';

export interface DistributeDeps {
  parts: PartsRepository;
  storage: Client<typeof StorageService>;
  logger: Logger;
  /** Tells every replica's worker that parts wait (a broadcast). */
  offer(offer: MessageInitShape<typeof PartsOfferedSchema>): Promise<void>;
  /** A part's lease, renewed while it is encoded (JOB_LEASE_SEC). */
  leaseMs: number;
  /** Starts of one part before the job fails (JOB_MAX_ATTEMPTS). */
  maxAttempts: number;
  /** How often the run reads its parts' records (parts done elsewhere, progress, lapsed leases). */
  pollMs: number;
}

export interface DistributeRequest {
  jobId: string;
  accountId: string;
  /** This worker: the job's run and the owner of its parts. */
  workerId: string;
  plan: TaskPlan;
  /** The blobs this worker staged the inputs from (PartDoc.inputBlobs). */
  inputBlobs: string[];
  splitInput: number;
  /** The job's time limit (epoch ms). */
  deadline: number;
  /** The slots this worker gives the job's parts (the job's own, and free ones). */
  schedule: Schedule;
}

/** The sentence a job ends with when a part's worker died too often. */
export const PART_WORKER_LOST = 'The worker running a part of this job stopped; it was not retried again.';

/** Fetches of one part that failed before its own worker encodes it instead. */
const FETCH_TRIES = 3;

export function distributeParts(deps: DistributeDeps, req: DistributeRequest): (ctx: SplitContext) => Promise<void> {
  return async (ctx) => {
    const runId = newId('r_', 12);
    const { jobId, accountId, workerId } = req;
    const lease = () => new Date(Date.now() + deps.leaseMs);
    const count = ctx.parts.length;
    // Another worker would fetch a URL input again (and might get other bytes): such runs keep their parts.
    const shared = req.plan.inputs.every((i) => i.source.kind === 'uploaded');
    const here = new Set<number>();
    const fetched = new Set<number>();
    const fetching = new Map<number, Promise<void>>();
    const fetchFailures = new Map<number, number>();
    const units = new Set<Promise<void>>();
    let waitingUnits = 0;
    let failure: { err: unknown } | undefined;
    // Wakes the loop below before its next read: a part done here, a unit failed.
    let nudge = () => {};
    const onAbort = () => nudge();
    ctx.signal.addEventListener('abort', onAbort);
    const fail = (err: unknown) => {
      failure ??= { err };
      ctx.abort(err); // the parts encoding here stop too
      nudge();
    };

    /** One slot's worth: claims the run's next pending part and encodes it here; none left, the slot goes back. */
    const unit = () => {
      waitingUnits++;
      const p = req
        .schedule(async () => {
          waitingUnits--;
          if (failure || ctx.signal.aborted) return;
          // The store down a moment: no part now; the loop offers the slot again.
          const doc = await deps.parts.claimOwn(runId, workerId, lease()).catch(skipOutage);
          if (!doc) return;
          const i = doc.geometry.index;
          deps.logger.debug({ jobId, part: i }, 'encoding a part here');
          const beat = setInterval(
            () => void deps.parts.heartbeat(doc._id, workerId, lease(), 0).catch(() => undefined),
            renewEveryMs(deps.leaseMs),
          );
          try {
            await ctx.encode(i);
          } finally {
            clearInterval(beat);
          }
          here.add(i);
          deps.logger.debug({ jobId, part: i }, 'encoded a part here');
          // Counted done here already: a record not updated is only read as this worker's part.
          await deps.parts.finish(doc._id, workerId, { status: 'done' }).catch(() => undefined);
          nudge();
        })
        .catch(fail);
      units.add(p);
      void p.finally(() => units.delete(p));
    };

    /** Part i, done elsewhere, fetched into place; failing that a few times, its own worker encodes it. */
    const fetchDone = (doc: PartDoc) => {
      const i = doc.geometry.index;
      const fetch = fetchPart(deps.storage, { jobId, runId, index: i }, ctx.partFile(i), ctx.signal)
        .then(() => {
          fetched.add(i);
          deps.logger.debug({ jobId, part: i }, 'fetched a part encoded elsewhere');
        })
        .catch(async (err: unknown) => {
          if (ctx.signal.aborted) return;
          const failures = (fetchFailures.get(i) ?? 0) + 1;
          fetchFailures.set(i, failures);
          deps.logger.warn({ err, jobId, part: i, failures }, 'could not fetch a part encoded elsewhere');
          if (failures >= FETCH_TRIES) await deps.parts.redo(doc._id).catch(() => undefined);
        })
        .finally(() => {
          fetching.delete(i);
          nudge();
        });
      fetching.set(i, fetch);
    };

    try {
      // An earlier run of this job (its worker died) left its parts: they are no use to this one.
      await clearJob(deps, jobId);
      const now = new Date();
      await deps.parts.insert(
        ctx.parts.map(
          (part, index): PartDoc => ({
            _id: partId(runId, index),
            runId,
            jobId,
            accountId,
            index,
            frames: part.frames,
            ownerId: workerId,
            status: 'pending',
            shared,
            geometry: { part, index, last: index === count - 1, inputStartSec: ctx.inputStartSec },
            plan: req.plan,
            inputBlobs: req.inputBlobs,
            splitInput: req.splitInput,
            deadline: new Date(req.deadline),
            workerId: null,
            leaseUntil: null,
            attempts: 0,
            outTimeSec: 0,
            error: null,
            createdAt: now,
            updatedAt: now,
          }),
        ),
      );
      for (let i = 0; i < count; i++) unit();
      if (shared)
        await deps.offer({ jobId, runId, accountId, parts: count }).catch((err: unknown) => {
          // Other replicas still find the parts on their next scan.
          deps.logger.warn({ err, jobId }, 'could not offer the parts to other workers');
        });
      while (here.size + fetched.size < count) {
        if (failure) throw failure.err;
        if (ctx.signal.aborted) throw ctx.signal.reason;
        // The store down a moment costs a round, not the run (its parts are encoded already).
        const docs = await deps.parts.ofRun(runId).catch(skipOutage);
        if (docs && docs.length < count) throw new Error(`the parts of run ${runId} were removed while it ran`);
        let pending = 0;
        for (const doc of docs ?? []) {
          const i = doc.geometry.index;
          if (doc.status === 'failed') throw partFailure(doc);
          if (doc.status === 'pending') pending++;
          if (doc.status === 'done' && !here.has(i)) {
            ctx.progress(i, doc.geometry.part.endSec - doc.geometry.part.startSec);
            if (!fetched.has(i) && !fetching.has(i)) fetchDone(doc);
          }
          if (doc.status === 'processing' && doc.workerId !== workerId) {
            ctx.started();
            ctx.progress(i, doc.outTimeSec);
            if (doc.leaseUntil && doc.leaseUntil < new Date()) {
              const back = await deps.parts
                .reclaimExpired(doc._id, new Date(), deps.maxAttempts, { kind: 'internal', message: PART_WORKER_LOST })
                .catch(skipOutage);
              if (back?.status === 'failed') throw partFailure(back);
              if (back) {
                pending++;
                deps.logger.warn({ jobId, part: i, attempts: back.attempts }, 'a part whose worker stopped is encoded again');
              }
            }
          }
        }
        // A part put back (its worker died, or gave it back) needs a slot here too.
        for (let n = waitingUnits; n < pending; n++) unit();
        if (here.size + fetched.size >= count) break;
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, deps.pollMs);
          nudge = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        nudge = () => {};
      }
      const remote = count - here.size;
      if (remote > 0) deps.logger.info({ jobId, parts: count, remote }, `${remote} of ${count} parts were encoded by other workers`);
    } finally {
      ctx.signal.removeEventListener('abort', onAbort);
      // Nothing of the run's may still be running when it settles (the split directory goes next).
      if (failure === undefined && here.size + fetched.size < count) ctx.abort(new Error('the run stopped'));
      while (units.size > 0 || fetching.size > 0) await Promise.allSettled([...units, ...fetching.values()]);
      await clearRun(deps, jobId, runId);
    }
  };
}

/** A retryable fault (the store or Storage down a moment) reads as nothing; any other error is thrown. */
function skipOutage(err: unknown): null {
  if (isRetryableFault(err)) return null;
  throw err;
}

/** Every run's parts of a job, records and files (an earlier run's); only `ownerId`'s runs when given (its worker died). */
export async function clearJob(deps: Pick<DistributeDeps, 'parts' | 'storage' | 'logger'>, jobId: string, ownerId?: string): Promise<void> {
  const runs = ownerId ? await deps.parts.runsOf(jobId, ownerId) : [undefined];
  await deps.parts.deleteJob(jobId, ownerId);
  for (const runId of runs)
    await deps.storage
      .deleteParts({ jobId, ...(runId ? { runId } : {}) })
      .catch((err: unknown) => deps.logger.warn({ err, jobId }, 'could not remove the parts of a job'));
}

/** A run's records and files. Removing the records stops the other workers still encoding one (their renewal fails). */
export async function clearRun(deps: Pick<DistributeDeps, 'parts' | 'storage' | 'logger'>, jobId: string, runId: string): Promise<void> {
  await deps.parts.deleteRun(runId).catch((err: unknown) => deps.logger.warn({ err, jobId }, 'could not remove the records of a run'));
  await deps.storage
    .deleteParts({ jobId, runId })
    .catch((err: unknown) => deps.logger.warn({ err, jobId }, 'could not remove the parts of a run'));
}

function partFailure(doc: PartDoc): DomainError {
  return new DomainError(doc.error?.kind ?? 'internal', doc.error?.message ?? PART_WORKER_LOST);
}
