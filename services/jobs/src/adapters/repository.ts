// The Jobs service's own data: every job (sync, async and probe admissions).
import type { DocStore } from '@media/docstore';

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
  [k: string]: unknown;
}

export async function openJobsRepository(store: DocStore) {
  const jobs = store.collection<JobDoc>('jobs');
  await jobs.createIndex({ keys: { accountId: 1, status: 1 } });
  await jobs.createIndex({ keys: { accountId: 1, createdAt: -1 } });
  const countActive = (accountId: string) => jobs.countDocuments({ accountId, status: { $in: ACTIVE_STATUSES } });
  return {
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
    remove: (jobId: string) => jobs.deleteOne({ _id: jobId }),
    removeIfOwned: (accountId: string, jobId: string) => jobs.deleteOne({ _id: jobId, accountId }),
    /** Moves a job from one of `from` to its final state; false when it was no longer there. */
    async finish(jobId: string, from: JobStatusName[], set: Partial<JobDoc>): Promise<boolean> {
      const now = new Date();
      const done = await jobs.findOneAndUpdate(
        { _id: jobId, status: { $in: from } },
        { $set: { ...set, updatedAt: now, ...(set.status === 'completed' || set.status === 'failed' ? { completedAt: now } : {}) } },
      );
      return done !== null;
    },
  };
}

export type JobsRepository = Awaited<ReturnType<typeof openJobsRepository>>;
