// What Jobs reports to Prometheus (packages/platform/src/metrics.ts): each job's end, and the
// live queue and slot figures of this process.
import { metrics, metricSources } from '@media/platform';
import type { JobDoc } from './job-doc.js';

/** A job reached its final state (the repository's finish and cancel). */
export function recordFinished(job: JobDoc): void {
  const kind = job.kind;
  metrics.jobsFinished.inc({ kind, outcome: job.status });
  if (job.startedAt) metrics.jobWait.observe({ kind }, Math.max(0, job.startedAt.getTime() - job.createdAt.getTime()) / 1000);
  if (job.status === 'completed' && job.usage) metrics.ffmpegSeconds.observe({ kind }, job.usage.timeSec);
}

/** Registers this Jobs service's live figures; returns their removal (on close). */
export function exposeLive(sources: { queued(): Promise<number>; running(): number; webhookBacklog(): Promise<number> }): () => void {
  const removals = [
    metricSources.queued(sources.queued),
    metricSources.running(async () => sources.running()),
    metricSources.webhookBacklog(sources.webhookBacklog),
  ];
  return () => {
    for (const remove of removals) remove();
  };
}
