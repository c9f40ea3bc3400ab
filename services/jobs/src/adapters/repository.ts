// The Jobs service's own data: every job (sync, async and probe admissions).
import { recordFinished } from '../domain/metrics.js';
import type { DocStore } from '@media/docstore';
import type { TaskPlan } from '@media/media';
import type { TaskJson } from '@media/proto/media/jobs/v1/jobs_pb.js';

export type JobStatusName = 'pending' | 'processing' | 'completed' | 'failed' | 'cancelled';
export type JobKindName = 'sync' | 'async' | 'probe';
export const ACTIVE_STATUSES: JobStatusName[] = ['pending', 'processing'];

export interface ResultItemDoc {
  fileName: string;
  sizeBytes: number;
  downloadUrl: string;
}

export interface UsageDoc {
  timeSec: number;
  inputSizeGb: number;
  outputSizeGb: number;
  gbSec: number;
}

export interface ProgressDoc {
  percent: number;
  fps: number;
  speed: number;
  etaSec: number | null;
}

/** The task as submitted: its proto JSON (domain/plan.ts storedTask, readStoredTask). */
export type StoredTask = TaskJson | LegacyStoredTask;

/** How older versions stored it: camelCase (options and maps may be absent). */
export interface LegacyStoredTask {
  inputs: { filePath: string; options?: string[] }[];
  outputs: { file: string; options: string[]; maps?: string[] }[];
  filterComplex?: string | undefined;
  outputDirId?: string | undefined;
}

export interface JobDoc {
  _id: string;
  accountId: string;
  keyId: string;
  kind: JobKindName;
  status: JobStatusName;
  webhookUrl: string | null;
  createdAt: Date;
  updatedAt: Date;
  completedAt: Date | null;
  inputCount: number;
  outputCount: number;
  result: ResultItemDoc[];
  usage: UsageDoc | null;
  amountUsd: number | null;
  error: string | null;
  /** Async jobs: what to run (the task as sent, and the plan made of it once), how often it was started, and the running worker's lease (sync and probe: see admissionLease). */
  task?: StoredTask;
  plan?: TaskPlan;
  attempts?: number;
  leaseUntil?: Date | null;
  workerId?: string | null;
  /** Pending async jobs: the worker staging its inputs, until when (renewed while it does; stage-ahead.ts). */
  stagingBy?: string | null;
  stagingUntil?: Date | null;
  /** Sync requests and probes: the process running it, which renews its lease (admission-owner.ts). */
  owner?: string | null;
  startedAt?: Date | null;
  progress?: ProgressDoc | null;
  /** Async jobs: the W3C trace context they were submitted in, when tracing is on (tracing.ts). */
  trace?: Record<string, string>;
  [k: string]: unknown;
}

export interface ListQuery {
  statuses: JobStatusName[];
  limit: number;
  offset: number;
  ascending: boolean;
}

export async function openJobsRepository(store: DocStore) {
  const jobs = store.collection<JobDoc>('jobs');
  await jobs.createIndex({ keys: { accountId: 1, status: 1 } });
  await jobs.createIndex({ keys: { accountId: 1, createdAt: -1 } });
  await jobs.createIndex({ keys: { status: 1, kind: 1, createdAt: 1 } });
  const countActive = (accountId: string) => jobs.countDocuments({ accountId, status: { $in: ACTIVE_STATUSES } });
  /** Async jobs processing (on any replica), by account: the fair order's measure. */
  const runningByAccount = async (): Promise<Map<string, number>> => {
    const load = new Map<string, number>();
    for (const j of await jobs.find({ status: 'processing', kind: 'async' }, { limit: 10_000 }))
      load.set(j.accountId, (load.get(j.accountId) ?? 0) + 1);
    return load;
  };
  return {
    runningByAccount,
    countActive,
    /**
     * Admission against the per-account limit, safe across replicas without a counter that a
     * crash could leave wrong: insert first, then count; over the limit -> take it back.
     * Concurrent admissions at the edge may both be refused, never both admitted past it.
     */
    async admit(doc: JobDoc, limit: number): Promise<boolean> {
      await jobs.insertOne(doc);
      if ((await countActive(doc.accountId)) <= limit) return true;
      await jobs.deleteOne({ _id: doc._id });
      return false;
    },
    get: (accountId: string, jobId: string) => jobs.findOne({ _id: jobId, accountId }),
    byId: (jobId: string) => jobs.findOne({ _id: jobId }),
    /** Takes the oldest pending async job (or the given one), once: a racing cancel or worker loses. */
    claim: (workerId: string, leaseUntil: Date, jobId?: string) =>
      jobs.findOneAndUpdate(
        { ...(jobId ? { _id: jobId } : {}), status: 'pending', kind: 'async' },
        {
          $set: {
            status: 'processing',
            workerId,
            leaseUntil,
            startedAt: new Date(),
            updatedAt: new Date(),
            progress: null,
            stagingBy: null,
            stagingUntil: null,
          },
          $inc: { attempts: 1 },
        },
        { sort: { createdAt: 1 } },
      ),
    /**
     * Up to `limit` pending async jobs in fair order: each next one is the oldest of the accounts
     * running (or already chosen here) the fewest jobs, so one account's backlog does not hold
     * another's next job behind it: round-robin across accounts, and work-conserving (an account
     * alone gets every slot). Running counts are the store's, so replicas balance together.
     */
    async pendingFair(limit: number, exclude: string[], staging?: ReadonlyMap<string, number>): Promise<JobDoc[]> {
      const load = await runningByAccount();
      // A worker's stagings count for their account too: one account's many slow fetches must not
      // keep another account's job from a staging place.
      for (const [account, n] of staging ?? []) load.set(account, (load.get(account) ?? 0) + n);
      const skip = [...exclude];
      const chosen: JobDoc[] = [];
      while (chosen.length < limit) {
        const levels = [...new Set([0, ...load.values()])].sort((a, b) => a - b);
        let next: JobDoc | undefined;
        for (const level of levels) {
          const busier = [...load].filter(([, n]) => n > level).map(([a]) => a);
          [next] = await jobs.find(
            {
              status: 'pending',
              kind: 'async',
              ...(busier.length > 0 ? { accountId: { $nin: busier } } : {}),
              ...(skip.length > 0 ? { _id: { $nin: skip } } : {}),
            },
            { sort: { createdAt: 1 }, limit: 1 },
          );
          if (next) break;
        }
        if (!next) break;
        chosen.push(next);
        skip.push(next._id);
        load.set(next.accountId, (load.get(next.accountId) ?? 0) + 1);
      }
      return chosen;
    },
    /**
     * Takes the staging of a pending job for `workerId` until `until`, unless another worker's
     * staging lease still holds it (replicas do not fetch the same inputs): the job, or null.
     */
    takeStaging: (jobId: string, workerId: string, until: Date) =>
      jobs.findOneAndUpdate(
        {
          _id: jobId,
          status: 'pending',
          kind: 'async',
          $or: [{ stagingUntil: null }, { stagingUntil: { $lt: new Date() } }, { stagingBy: workerId }],
        },
        { $set: { stagingBy: workerId, stagingUntil: until } },
      ),
    /** Renews a worker's staging leases. */
    renewStagings: (jobIds: string[], workerId: string, until: Date) =>
      jobs.updateMany({ _id: { $in: jobIds }, status: 'pending', stagingBy: workerId }, { $set: { stagingUntil: until } }),
    /** Gives up a worker's staging lease (its staging stopped): another worker may stage the job at once. */
    dropStaging: (jobId: string, workerId: string) =>
      jobs.updateMany({ _id: jobId, stagingBy: workerId }, { $set: { stagingBy: null, stagingUntil: null } }),
    heartbeat: (jobId: string, workerId: string, leaseUntil: Date, progress?: JobDoc['progress']) =>
      jobs.updateMany({ _id: jobId, status: 'processing', workerId }, { $set: { leaseUntil, ...(progress ? { progress } : {}) } }),
    /** Processing async jobs whose worker stopped renewing its lease (it died). */
    expiredLeases: (now: Date) => jobs.find({ status: 'processing', kind: 'async', leaseUntil: { $lt: now } }, { limit: 100 }),
    /** Pushes back the leases of an owner's admissions still in progress. */
    renewAdmissions: (owner: string, ids: string[], leaseUntil: Date) =>
      jobs.updateMany({ _id: { $in: ids }, owner, status: 'processing' }, { $set: { leaseUntil } }),
    /** An owner's admissions still in progress (a process started again looks for what it held). */
    ownedAdmissions: (owner: string) => jobs.find({ status: 'processing', kind: { $in: ['sync', 'probe'] }, owner }, { limit: 1000 }),
    /** Sync requests and probe admissions past their lease: whoever was serving them stopped. */
    expiredAdmissions: (now: Date) =>
      jobs.find({ status: 'processing', kind: { $in: ['sync', 'probe'] }, leaseUntil: { $lt: now } }, { limit: 100 }),
    /** Puts a job whose worker died back in the queue, unless someone else already moved it. */
    requeue: (jobId: string, workerId: string | null | undefined) =>
      jobs.findOneAndUpdate(
        { _id: jobId, status: 'processing', workerId: workerId ?? null },
        { $set: { status: 'pending', workerId: null, leaseUntil: null, updatedAt: new Date(), progress: null } },
      ),
    /** Puts back a job this worker stopped to give its slot to another account: not a start (maxAttempts). */
    requeuePreempted: (jobId: string, workerId: string) =>
      jobs.findOneAndUpdate(
        { _id: jobId, status: 'processing', workerId },
        { $set: { status: 'pending', workerId: null, leaseUntil: null, updatedAt: new Date(), progress: null }, $inc: { attempts: -1 } },
      ),
    async cancel(accountId: string, jobId: string) {
      const cancelled = await jobs.findOneAndUpdate(
        { _id: jobId, accountId, status: 'pending' },
        { $set: { status: 'cancelled', updatedAt: new Date() } },
      );
      if (cancelled) recordFinished(cancelled);
      return cancelled;
    },
    /** Async jobs waiting for a worker (media_jobs_queued). */
    countQueued: () => jobs.countDocuments({ status: 'pending', kind: 'async' }),
    async list(accountId: string, q: ListQuery): Promise<{ jobs: JobDoc[]; total: number }> {
      const filter = { accountId, kind: { $in: ['sync', 'async'] }, ...(q.statuses.length ? { status: { $in: q.statuses } } : {}) };
      const dir = q.ascending ? 1 : -1;
      const [page, total] = await Promise.all([
        jobs.find(filter, { sort: { createdAt: dir, _id: dir }, skip: q.offset, limit: q.limit }),
        jobs.countDocuments(filter),
      ]);
      return { jobs: page, total };
    },
    remove: (jobId: string) => jobs.deleteOne({ _id: jobId }),
    removeIfOwned: (accountId: string, jobId: string) => jobs.deleteOne({ _id: jobId, accountId }),
    /**
     * Moves a job from one of `from` to its final state; false when it was no longer there (or,
     * with `workerId`, when another worker holds it now: completion is idempotent).
     */
    async finish(jobId: string, from: JobStatusName[], set: Partial<JobDoc>, workerId?: string): Promise<boolean> {
      const now = new Date();
      const done = await jobs.findOneAndUpdate(
        { _id: jobId, status: { $in: from }, ...(workerId ? { workerId } : {}) },
        {
          $set: {
            ...set,
            updatedAt: now,
            leaseUntil: null,
            progress: null,
            ...(set.status === 'completed' || set.status === 'failed' ? { completedAt: now } : {}),
          },
        },
      );
      if (done) recordFinished(done);
      return done !== null;
    },
  };
}

export type JobsRepository = Awaited<ReturnType<typeof openJobsRepository>>;
