// A task is planned once, here in Jobs (the gateway only reads the JSON into the proto Task): a
// sync request runs the plan at once; an async job keeps it with the job and its worker runs that
// same plan. A job stores the task as its proto JSON (the request body's shape).
import { create, fromJson, type JsonValue, toJson } from '@bufbuild/protobuf';
import { planTask, PLAN_VERSION, type TaskPlan } from '@media/media';
import { type Task, type TaskJson, TaskSchema } from '@media/proto/media/jobs/v1/jobs_pb.js';
import type { JobDoc, LegacyStoredTask, StoredTask } from './job-doc.js';

/** The task as a job stores it (and GetJob, the console, a re-plan read it back). */
export const storedTask = (task: Task): TaskJson => toJson(TaskSchema, task);

/**
 * A stored task read back. Jobs stored before the task was declared once hold its camelCase init
 * shape (filePath, filterComplex: keys the proto JSON does not have); create() reads those. A field
 * a later version added is passed over, so a rollback still reads the jobs that version stored.
 */
export function readStoredTask(stored: StoredTask): Task {
  if (isLegacy(stored)) return create(TaskSchema, stored);
  return fromJson(TaskSchema, stored as JsonValue, { ignoreUnknownFields: true });
}

const isLegacy = (t: StoredTask): t is LegacyStoredTask =>
  'filterComplex' in t || 'outputDirId' in t || (t.inputs ?? []).some((i) => 'filePath' in i);

/** The plan an async job was queued with; a job queued by an older version is planned again. */
export function jobPlan(job: JobDoc): TaskPlan {
  if (job.plan && job.plan.version === PLAN_VERSION) return job.plan;
  return planTask(readStoredTask(job.task!));
}
