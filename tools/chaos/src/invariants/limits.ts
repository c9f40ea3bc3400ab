// The per-account limits hold across replicas. Rate: a key admits at most its per-minute limit,
// plus what gateway/src/auth/local-rate.ts documents ("with N replicas a key can pass the limit by
// what the other replicas admit in one sync interval": the burst's rate times the sync interval,
// per other gateway), plus the sliding window's slide over the burst's own duration. Jobs: at most
// the limit accepted at once, plus the accepted jobs that had already ended before the last answer.
import type { LimitProbes, WebhookDelivery } from '../record.js';
import { verdict, type Verdict } from './verdict.js';

export function rateTolerance(limit: number, sent: number, durationMs: number, gateways: number, syncMs: number): number {
  const crossReplica = (gateways - 1) * Math.ceil((sent / Math.max(durationMs, 1)) * syncMs);
  const slide = Math.ceil((limit * durationMs) / 60_000);
  return crossReplica + slide;
}

export function checkLimits(limits: LimitProbes, webhooks: WebhookDelivery[], gateways: number, syncMs: number): Verdict {
  const violations: string[] = [];
  const figures: Record<string, number> = {};
  const parts: string[] = [];
  const r = limits.rate;
  if (!r) violations.push('the rate limit was not probed');
  else {
    const tolerance = rateTolerance(r.limit, r.sent, r.durationMs, gateways, syncMs);
    Object.assign(figures, {
      rateLimit: r.limit,
      rateSent: r.sent,
      rateAdmitted: r.admitted,
      rateRefused: r.refused,
      rateTolerance: tolerance,
    });
    parts.push(
      `rate: ${r.admitted}/${r.sent} admitted in ${(r.durationMs / 1000).toFixed(1)} s (limit ${r.limit} + ${tolerance} tolerance)`,
    );
    if (r.admitted > r.limit + tolerance) violations.push(`rate: ${r.admitted} admitted, over ${r.limit} + ${tolerance}`);
    if (r.refused === 0) violations.push(`rate: none of ${r.sent} refused`);
  }
  const j = limits.jobs;
  if (!j) violations.push('the job limit was not probed');
  else {
    const ids = new Set(j.accepted);
    const endedEarly = new Set<string>();
    for (const w of webhooks) {
      try {
        const b = JSON.parse(w.body) as { job_id?: string; completed_at?: string };
        if (b.job_id && ids.has(b.job_id) && b.completed_at && Date.parse(b.completed_at) <= j.lastAnswerMs) endedEarly.add(b.job_id);
      } catch {}
    }
    Object.assign(figures, {
      jobLimit: j.limit,
      jobsSent: j.sent,
      jobsAccepted: ids.size,
      jobsRefused: j.refused,
      jobsEndedEarly: endedEarly.size,
    });
    parts.push(`jobs: ${ids.size}/${j.sent} accepted (limit ${j.limit}, ${endedEarly.size} ended before the last answer)`);
    if (ids.size > j.limit + endedEarly.size)
      violations.push(`jobs: ${ids.size} accepted at once, over ${j.limit} + ${endedEarly.size} ended`);
    if (j.refused === 0) violations.push(`jobs: none of ${j.sent} refused`);
  }
  return verdict('per-account limits across replicas', parts.join('; '), violations, figures);
}
