// One constructor for a new job record, whatever its kind.
import { newId } from '@media/platform';
import type { JobDoc, JobKindName, JobStatusName } from '../adapters/repository.js';

export function newJobDoc(
  who: { accountId: string; keyId: string },
  kind: JobKindName,
  status: JobStatusName,
  counts: { inputCount: number; outputCount: number },
  extra: Partial<JobDoc> = {},
): JobDoc {
  const now = new Date();
  return {
    _id: newId('job_', 20),
    accountId: who.accountId,
    keyId: who.keyId,
    kind,
    status,
    webhookUrl: null,
    createdAt: now,
    updatedAt: now,
    completedAt: null,
    ...counts,
    result: [],
    usage: null,
    amountUsd: null,
    error: null,
    ...extra,
  };
}
