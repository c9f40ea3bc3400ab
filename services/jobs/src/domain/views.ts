import { create } from '@bufbuild/protobuf';
import { JobKindSchema, JobSchema, JobStatusSchema, type JobKind, type JobStatus } from '@media/proto/media/jobs/v1/jobs_pb.js';
import { enumNames, toTimestamp } from '@media/platform';
import type { JobDoc, JobKindName, JobStatusName } from './job-doc.js';
import { readStoredTask } from './plan.js';

const STATUS = enumNames<JobStatus, JobStatusName>(JobStatusSchema);
const KIND = enumNames<JobKind, JobKindName>(JobKindSchema);

export const statusName = (s: JobStatus): JobStatusName | undefined => STATUS.name(s);

export function jobMessage(j: JobDoc) {
  return create(JobSchema, {
    jobId: j._id,
    accountId: j.accountId,
    keyId: j.keyId,
    status: STATUS.value(j.status),
    kind: KIND.value(j.kind),
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
    splitParts: j.splitParts,
    progress:
      j.status === 'processing' && j.progress
        ? { percent: j.progress.percent, fps: j.progress.fps, speed: j.progress.speed, etaSec: j.progress.etaSec ?? undefined }
        : undefined,
  });
}

/** A job with the task it ran (GetJob; lists leave it out: a task can be long). */
export function jobDetailMessage(j: JobDoc) {
  const job = jobMessage(j);
  if (j.task) job.task = readStoredTask(j.task);
  return job;
}
