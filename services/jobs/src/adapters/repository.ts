// The Jobs service's own data: every job (sync, async and probe admissions).
import type { DocStore } from '@media/docstore';

export type JobStatusName = 'pending' | 'processing' | 'completed' | 'failed' | 'cancelled';
export const ACTIVE_STATUSES: JobStatusName[] = ['pending', 'processing'];

export interface JobDoc {
  _id: string;
  accountId: string;
  keyId: string;
  status: JobStatusName;
  createdAt: Date;
  updatedAt: Date;
  [k: string]: unknown;
}

export async function openJobsRepository(store: DocStore) {
  const jobs = store.collection<JobDoc>('jobs');
  await jobs.createIndex({ keys: { accountId: 1, status: 1 } });
  await jobs.createIndex({ keys: { accountId: 1, createdAt: -1 } });
  return {
    countActive: (accountId: string) => jobs.countDocuments({ accountId, status: { $in: ACTIVE_STATUSES } }),
  };
}

export type JobsRepository = Awaited<ReturnType<typeof openJobsRepository>>;
