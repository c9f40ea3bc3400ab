// One constructor for a new job record, whatever its kind.
import { newId, type TraceCarrier } from '@media/platform';
import type { JobDoc, JobKindName, JobStatusName } from '../adapters/repository.js';

/**
 * A sync request or a probe is admitted as a job whose process must finish it. One that stops
 * first (a crash, a lost finishJob) would hold one of the account's 50 slots for good; the lease
 * lets the job scan release it. Its process renews it while the work runs (LeaseKeeper), so a
 * process that dies holds it one short lease (ADMISSION_LEASE_SEC) at most, and one started
 * again releases at once what it held (releaseOwned). Without an owner to renew it (an older
 * caller), twice the time limit: the run is bounded by the limit, storing outputs follows it.
 */
export const admissionLease = (leaseMs: number): Date => new Date(Date.now() + leaseMs);

export const INTERRUPTED_ERROR = 'The request was interrupted: the service handling it stopped before it finished.';

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

/** A job's `trace` field: only when traced (the store keeps no empty field otherwise). */
export const withTrace = (trace: TraceCarrier | undefined): { trace?: TraceCarrier } => (trace ? { trace } : {});
