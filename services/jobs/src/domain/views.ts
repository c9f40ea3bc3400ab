import { create } from '@bufbuild/protobuf';
import { JobSchema, JobStatus, JobKind } from '@media/proto/media/jobs/v1/jobs_pb.js';
import { toTimestamp } from '@media/platform';
import type { JobDoc, JobStatusName } from '../adapters/repository.js';

const STATUS: Record<JobStatusName, JobStatus> = {
  pending: JobStatus.PENDING,
  processing: JobStatus.PROCESSING,
  completed: JobStatus.COMPLETED,
  failed: JobStatus.FAILED,
  cancelled: JobStatus.CANCELLED,
};

export const statusName = (s: JobStatus): JobStatusName | undefined =>
  (Object.entries(STATUS) as [JobStatusName, JobStatus][]).find(([, v]) => v === s)?.[0];

const KIND = { sync: JobKind.SYNC, async: JobKind.ASYNC, probe: JobKind.PROBE } as const;

export function jobMessage(j: JobDoc) {
  return create(JobSchema, {
    jobId: j._id,
    accountId: j.accountId,
    keyId: j.keyId,
    status: STATUS[j.status],
    kind: KIND[j.kind],
    webhookUrl: j.webhookUrl ?? undefined,
    createdAt: toTimestamp(j.createdAt),
    updatedAt: toTimestamp(j.updatedAt),
    completedAt: j.completedAt ? toTimestamp(j.completedAt) : undefined,
    inputCount: j.inputCount,
    outputCount: j.outputCount,
    result: j.result.map((r) => ({ fileName: r.fileName, sizeBytes: BigInt(r.sizeBytes), downloadUrl: r.downloadUrl })),
    usage: j.usage ?? undefined,
    amountUsd: j.amountUsd ?? undefined,
    error: j.error ?? undefined,
    progress:
      j.status === 'processing' && j.progress
        ? { percent: j.progress.percent, fps: j.progress.fps, speed: j.progress.speed, etaSec: j.progress.etaSec ?? undefined }
        : undefined,
  });
}
