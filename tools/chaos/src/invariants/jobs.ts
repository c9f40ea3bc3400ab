// Every async job answered 202 ends terminal (none stuck pending or processing, none missing), and
// none ran twice to completion: a job's completion as its webhook deliveries carry it (completed_at,
// usage, amount) is one, whatever the number of attempts.
import type { RunData } from '../record.js';
import { acceptedJobs } from './accepted.js';
import { countBy, TERMINAL, verdict, type Verdict } from './verdict.js';

export function checkJobs(data: Pick<RunData, 'calls' | 'finalJobs' | 'webhooks'>): Verdict {
  const accepted = acceptedJobs(data.calls);
  const final = new Map(data.finalJobs.map((j) => [j.id, j]));
  const violations: string[] = [];
  for (const [id, account] of accepted) {
    const job = final.get(id);
    if (!job) violations.push(`${id} (${account}): accepted with 202, not listed at the end`);
    else if (!TERMINAL.includes(job.status)) violations.push(`${id} (${account}): still ${job.status} at the end`);
  }
  const completions = new Map<string, Set<string>>();
  for (const w of data.webhooks) {
    let body: { job_id?: string; status?: string; completed_at?: string; amount_usd?: number; usage?: { time_sec?: number } };
    try {
      body = JSON.parse(w.body);
    } catch {
      continue; // the webhook invariant reports it
    }
    if (body.status !== 'completed' || !body.job_id) continue;
    const seen = completions.get(body.job_id) ?? new Set<string>();
    seen.add(`${body.completed_at} ${body.amount_usd} ${body.usage?.time_sec}`);
    completions.set(body.job_id, seen);
  }
  let twice = 0;
  for (const [id, seen] of completions)
    if (seen.size > 1) {
      twice++;
      violations.push(`${id}: ran to completion ${seen.size} times (${[...seen].join(' | ')})`);
    }
  const statuses = countBy([...accepted.keys()], (id) => final.get(id)?.status ?? 'missing');
  return verdict(
    'jobs terminal, none run twice',
    `${accepted.size} accepted: ${Object.entries(statuses)
      .map(([s, n]) => `${n} ${s}`)
      .join(', ')}; ${twice} run twice`,
    violations,
    { accepted: accepted.size, ...statuses, ranTwice: twice },
  );
}
