// What the domain needs of the jobs store (implemented by the repository adapter): the domain
// depends on this interface, never on the store's code.
import type { JobDoc, JobStatusName } from './job-doc.js';

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
