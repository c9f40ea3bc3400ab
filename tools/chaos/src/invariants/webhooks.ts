// Every completed or failed job's webhook was delivered at least once, with a Standard Webhooks
// signature that verifies under its account's secret (recomputed with the standardwebhooks
// library: the run's deliveries may be older than its 5-minute replay window by the end), and one
// delivery id (webhook-id, the job id) across all its attempts.
import { Webhook } from 'standardwebhooks';
import type { RunData } from '../record.js';
import { acceptedJobs } from './accepted.js';
import { verdict, type Verdict } from './verdict.js';

/** Whether one delivery's signature header holds the signature of its id, timestamp and body. */
export function signatureVerifies(secret: string, headers: Record<string, string>, body: string): boolean {
  const id = headers['webhook-id'];
  const ts = Number(headers['webhook-timestamp']);
  const sent = (headers['webhook-signature'] ?? '').split(' ');
  if (!id || !Number.isInteger(ts)) return false;
  const expected = new Webhook(secret).sign(id, new Date(ts * 1000), body);
  return sent.includes(expected);
}

export function checkWebhooks(data: Pick<RunData, 'calls' | 'finalJobs' | 'webhooks' | 'secrets'>): Verdict {
  const violations: string[] = [];
  const accepted = acceptedJobs(data.calls);
  const byJob = new Map<string, { ids: Set<string>; verified: number; attempts: number }>();
  let bad = 0;
  for (const w of data.webhooks) {
    let jobId: string | undefined;
    try {
      jobId = (JSON.parse(w.body) as { job_id?: string }).job_id;
    } catch {
      violations.push(`a delivery to ${w.account} whose body is not JSON`);
      continue;
    }
    if (!jobId) {
      violations.push(`a delivery to ${w.account} without a job_id`);
      continue;
    }
    const e = byJob.get(jobId) ?? { ids: new Set<string>(), verified: 0, attempts: 0 };
    e.attempts++;
    e.ids.add(w.headers['webhook-id'] ?? '(none)');
    const secret = data.secrets[w.account];
    if (secret && signatureVerifies(secret, w.headers, w.body)) e.verified++;
    else {
      bad++;
      violations.push(`${jobId}: a delivery whose signature does not verify (attempt ${w.headers['webhook-attempt'] ?? '?'})`);
    }
    byJob.set(jobId, e);
  }
  let delivered = 0;
  let owed = 0;
  let retried = 0;
  for (const j of data.finalJobs) {
    if (!accepted.has(j.id) || (j.status !== 'completed' && j.status !== 'failed')) continue;
    owed++;
    const e = byJob.get(j.id);
    if (!e || e.verified === 0) violations.push(`${j.id} (${j.status}): no verified webhook delivery`);
    else delivered++;
    if (e && e.attempts > 1) retried++;
    if (e && (e.ids.size !== 1 || !e.ids.has(j.id)))
      violations.push(`${j.id}: delivery ids ${[...e.ids].join(', ')} (one, the job id, expected)`);
  }
  return verdict(
    'webhooks delivered, signed, stable ids',
    `${delivered}/${owed} terminal jobs delivered (${data.webhooks.length} deliveries, ${retried} jobs delivered more than once, ${bad} bad signatures)`,
    violations,
    { owed, delivered, deliveries: data.webhooks.length, deliveredMoreThanOnce: retried, badSignatures: bad },
  );
}
