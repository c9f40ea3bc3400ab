// POST /ffmpeg/process/async: the same checks as the sync endpoint (400/403/404/429), then the
// job is persisted as pending and dispatched; it never answers 503 (the job waits its turn).
import { checkWebhookUrlForm, planTask, resolvePlan } from '@media/media';
import type { Task } from '@media/proto/media/jobs/v1/jobs_pb.js';
import { Errors, traceCarrier } from '@media/platform';
import { newJobDoc, withTrace, type JobDoc, type Principal } from './job-doc.js';
import type { Dispatch } from './dispatch.js';
import { storedTask } from './plan.js';
import type { ProcessDeps } from './process.js';

export interface SubmitDeps extends ProcessDeps {
  dispatch: Dispatch;
  checkWebhook(url: string): Promise<void>;
}

export async function submitAsync(deps: SubmitDeps, who: Principal, task: Task, webhookUrl?: string): Promise<JobDoc> {
  // Planned once: the job keeps the plan and its worker runs it.
  const plan = planTask(task);
  if (webhookUrl !== undefined) {
    checkWebhookUrlForm(webhookUrl);
    await deps.checkWebhook(webhookUrl);
  }
  await resolvePlan(deps, who.accountId, plan);
  const job = newJobDoc(
    who,
    'async',
    'pending',
    { inputCount: task.inputs.length, outputCount: task.outputs.length },
    {
      webhookUrl: webhookUrl ?? null,
      task: storedTask(task),
      plan,
      attempts: 0,
      leaseUntil: null,
      workerId: null,
      startedAt: null,
      progress: null,
      // The trace of the request that submitted it: its run and webhook attempts continue it.
      ...withTrace(traceCarrier()),
    },
  );
  if (!(await deps.repo.admit(job, deps.parallelJobs))) throw Errors.tooManyJobs(deps.busyRetryAfterSec, deps.parallelJobs);
  // Persisted first; dispatch is best effort and never delays the 202 (a broker that is down
  // would otherwise hold the answer): a worker's periodic scan finds the job anyway.
  void deps.dispatch.send(job._id, job.accountId).catch(() => undefined);
  return job;
}
