// A job's record (every job: sync, async and probe admissions) and its one constructor.
import type { TaskPlan } from '@media/media';
import type { TaskJson } from '@media/proto/media/jobs/v1/jobs_pb.js';
import { newId, type TraceCarrier } from '@media/platform';

/** Who a job runs for: the account and the API key that sent it. */
export interface Principal {
  accountId: string;
  keyId: string;
}

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
  /** Completed jobs whose video was encoded in parts in parallel (issue 42): how many. */
  splitParts?: number;
  /** Async jobs: the W3C trace context they were submitted in, when tracing is on (tracing.ts). */
  trace?: Record<string, string>;
  [k: string]: unknown;
}

/**
 * A sync request or a probe is admitted as a job whose process must finish it. One that stops
 * first (a crash, a lost finishJob) would hold one of the account's 50 slots for good; the lease
 * lets the job scan release it. Its process renews it while the work runs (LeaseKeeper), so a
 * process that dies holds it one short lease (ADMISSION_LEASE_SEC) at most, and one started
 * again releases at once what it held (releaseOwned). Without an owner to renew it (an older
 * caller), twice the time limit: the run is bounded by the limit, storing outputs follows it.
 */
export const admissionLease = (leaseMs: number): Date => new Date(Date.now() + leaseMs);

/** How often a lease of `leaseMs` is renewed (jobs' and parts'): every second, or three times a lease if shorter. */
export const renewEveryMs = (leaseMs: number): number => Math.max(50, Math.min(1000, Math.floor(leaseMs / 3)));

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
