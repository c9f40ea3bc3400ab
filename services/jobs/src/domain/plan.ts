// A task is planned once, here in Jobs (the gateway only reads the JSON): a sync request runs the
// plan at once; an async job keeps it with the job and its worker runs that same plan.
import { planTask, PLAN_VERSION, type TaskPlan, type TaskSpec } from '@media/media';
import type { JobDoc, StoredTask } from './job-doc.js';

/** The proto Task or the stored copy of one (same field names) as the policy reads it. */
export function taskSpec(task: StoredTask): TaskSpec {
  return {
    inputs: task.inputs.map((i) => ({ filePath: i.filePath, options: [...(i.options ?? [])] })),
    outputs: task.outputs.map((o) => ({ file: o.file, options: [...o.options], maps: [...(o.maps ?? [])] })),
    ...(task.filterComplex === undefined ? {} : { filterComplex: task.filterComplex }),
    ...(task.outputDirId === undefined ? {} : { outputDirId: task.outputDirId }),
  };
}

/** The task as stored with an async job: the user's shape, for the record. */
export function storedTask(spec: TaskSpec): StoredTask {
  return {
    inputs: spec.inputs.map((i) => ({ filePath: i.filePath, options: [...i.options] })),
    outputs: spec.outputs.map((o) => ({ file: o.file, options: [...o.options], maps: [...o.maps] })),
    ...(spec.filterComplex === undefined ? {} : { filterComplex: spec.filterComplex }),
    ...(spec.outputDirId === undefined ? {} : { outputDirId: spec.outputDirId }),
  };
}

export const planOf = (task: StoredTask): TaskPlan => planTask(taskSpec(task));

/** The plan an async job was queued with; a job queued by an older version is planned again. */
export function jobPlan(job: JobDoc): TaskPlan {
  if (job.plan && job.plan.version === PLAN_VERSION) return job.plan;
  return planOf(job.task!);
}
