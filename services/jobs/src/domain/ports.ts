// What the domain needs of the jobs store (implemented by the repository adapter): the domain
// depends on this interface, never on the store's code.
import type { JobDoc, JobStatusName } from './job-doc.js';
import type { PartDoc, PartError } from './split-parts/part-doc.js';

export interface ListQuery {
  statuses: JobStatusName[];
  limit: number;
  offset: number;
  ascending: boolean;
}

export interface JobsRepository {
  /** Async jobs processing (on any replica), by account: the fair order's measure. */
  runningByAccount(): Promise<Map<string, number>>;
  countActive(accountId: string): Promise<number>;
  /** Inserts the job unless the account already has `limit` jobs in progress: false then (nothing kept). */
  admit(doc: JobDoc, limit: number): Promise<boolean>;
  get(accountId: string, jobId: string): Promise<JobDoc | null>;
  byId(jobId: string): Promise<JobDoc | null>;
  /** Takes the oldest pending async job (or the given one), once: a racing cancel or worker loses. */
  claim(workerId: string, leaseUntil: Date, jobId?: string): Promise<JobDoc | null>;
  /** Up to `limit` pending async jobs in fair order across accounts (stagings counted as running). */
  pendingFair(limit: number, exclude: string[], staging?: ReadonlyMap<string, number>): Promise<JobDoc[]>;
  /** Takes the staging of a pending job for `workerId` until `until`, unless another worker holds it: the job, or null. */
  takeStaging(jobId: string, workerId: string, until: Date): Promise<JobDoc | null>;
  renewStagings(jobIds: string[], workerId: string, until: Date): Promise<number>;
  dropStaging(jobId: string, workerId: string): Promise<number>;
  heartbeat(jobId: string, workerId: string, leaseUntil: Date, progress?: JobDoc['progress']): Promise<number>;
  /** Processing async jobs whose worker stopped renewing its lease (it died). */
  expiredLeases(now: Date): Promise<JobDoc[]>;
  renewAdmissions(owner: string, ids: string[], leaseUntil: Date): Promise<number>;
  /** An owner's admissions still in progress (a process started again looks for what it held). */
  ownedAdmissions(owner: string): Promise<JobDoc[]>;
  /** Sync requests and probe admissions past their lease: whoever was serving them stopped. */
  expiredAdmissions(now: Date): Promise<JobDoc[]>;
  /** Puts a job whose worker died back in the queue, unless someone else already moved it. */
  requeue(jobId: string, workerId: string | null | undefined): Promise<JobDoc | null>;
  /** Puts back a job this worker stopped to give its slot to another account: not a start (maxAttempts). */
  requeuePreempted(jobId: string, workerId: string): Promise<JobDoc | null>;
  cancel(accountId: string, jobId: string): Promise<JobDoc | null>;
  /** Async jobs waiting for a worker (media_jobs_queued). */
  countQueued(): Promise<number>;
  list(accountId: string, q: ListQuery): Promise<{ jobs: JobDoc[]; total: number }>;
  remove(jobId: string): Promise<boolean>;
  removeIfOwned(accountId: string, jobId: string): Promise<boolean>;
  /** Moves a job from one of `from` to its final state; false when it was no longer there (or another worker holds it). */
  finish(jobId: string, from: JobStatusName[], set: Partial<JobDoc>, workerId?: string): Promise<boolean>;
}

/** What the domain needs of the split parts store (split-parts/part-doc.ts). */
export interface PartsRepository {
  insert(parts: PartDoc[]): Promise<void>;
  /** The run's own next pending part (the longest, then the lowest index), claimed for `workerId`: null when none is left. */
  claimOwn(runId: string, workerId: string, leaseUntil: Date): Promise<PartDoc | null>;
  /**
   * A pending part of a run this worker does not own, in fair order (the accounts with the least
   * `load` first, then the oldest run, its longest part), claimed for `workerId`: null when none. `load` is read only
   * when some part is pending.
   */
  claimOther(workerId: string, leaseUntil: Date, load: () => Promise<ReadonlyMap<string, number>>): Promise<PartDoc | null>;
  /** Renews the lease of a part `workerId` holds; false when it no longer does (the run ended, say). */
  heartbeat(id: string, workerId: string, leaseUntil: Date, outTimeSec: number): Promise<boolean>;
  /** Moves a part `workerId` holds to done (or failed, with the user's error); false when it no longer held it. */
  finish(id: string, workerId: string, set: { status: 'done' } | { status: 'failed'; error: PartError }): Promise<boolean>;
  /**
   * Puts a part `workerId` holds back to pending; not counted as a start when `uncounted`; for its
   * run's own worker only when `ownerOnly` (another worker could not stage or encode it).
   */
  release(id: string, workerId: string, how: { uncounted?: boolean; ownerOnly?: boolean }): Promise<boolean>;
  /** A done part whose file cannot be fetched: pending again, for its run's own worker to encode. */
  redo(id: string): Promise<boolean>;
  exists(id: string): Promise<boolean>;
  /** Puts back a processing part whose lease lapsed (its worker died): pending, or failed with `error` past `maxAttempts`. */
  reclaimExpired(id: string, now: Date, maxAttempts: number, error: PartError): Promise<PartDoc | null>;
  ofRun(runId: string): Promise<PartDoc[]>;
  /** Parts processing, by account (the fair order counts them with the account's jobs). */
  processingByAccount(): Promise<Map<string, number>>;
  deleteRun(runId: string): Promise<number>;
  /** Every run's parts of the job (a job run again); only those `ownerId` split when given (its worker died). */
  deleteJob(jobId: string, ownerId?: string): Promise<number>;
  /** The runs of the job that `ownerId` split. */
  runsOf(jobId: string, ownerId: string): Promise<string[]>;
  /** Runs whose time limit has passed (a run that ended without removing its parts: its worker died). */
  expiredRuns(now: Date): Promise<{ jobId: string; runId: string }[]>;
}
