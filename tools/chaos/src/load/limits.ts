// The per-account limits, probed across the gateways before the steady load: one key sends more
// requests at once than its per-minute rate; one account submits more paced async jobs at once
// than it may have in progress. The limits are the ones GET /account reports.
import type { Client } from '../client.js';
import type { LimitProbes } from '../record.js';
import { nextName, type LoadAccount } from './context.js';

const OVER = 1.2;

async function limitsOf(client: Client, a: LoadAccount): Promise<{ rate: number; jobs: number }> {
  const res = await client.api('burst-rate', a, 'GET', '/account');
  const limits = res.body?.limits as { requests_per_minute: number; parallel_jobs: number } | undefined;
  if (!limits) throw new Error(`GET /account answered ${res.status ?? 'nothing'}: cannot read the limits`);
  return { rate: limits.requests_per_minute, jobs: limits.parallel_jobs };
}

/** Runs `n` calls with at most `width` in flight. */
async function fanOut(n: number, width: number, one: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < n) await one(next++);
    }),
  );
}

export async function probeRate(client: Client, a: LoadAccount): Promise<NonNullable<LimitProbes['rate']>> {
  const { rate } = await limitsOf(client, a);
  const sent = Math.ceil(rate * OVER);
  const first = client.calls.length;
  const start = Date.now();
  await fanOut(sent, 16, async () => void (await client.api('burst-rate', a, 'GET', '/account')));
  const calls = client.calls.slice(first);
  return {
    account: a.label,
    limit: rate,
    sent: calls.length,
    admitted: calls.filter((c) => c.status === 200).length,
    refused: calls.filter((c) => c.status === 429).length,
    durationMs: Date.now() - start,
  };
}

/** `slowFile`: a clip in the account's directory that the realtime filter paces (a slot held, no CPU burnt). */
export async function probeJobs(
  client: Client,
  a: LoadAccount,
  slowFile: string,
  webhookUrl: string,
): Promise<NonNullable<LimitProbes['jobs']>> {
  const { jobs } = await limitsOf(client, a);
  const sent = Math.ceil(jobs * OVER);
  const accepted: string[] = [];
  let refused = 0;
  let lastAnswerMs = 0;
  await fanOut(sent, 16, async () => {
    const task = {
      inputs: [{ file_path: `${a.dirId}/${slowFile}` }],
      outputs: [{ file: nextName(a, 'paced', 'null'), options: ['-vf', 'realtime', '-f', 'null'] }],
    };
    const res = await client.api('burst-jobs', a, 'POST', '/ffmpeg/process/async', { task, webhook_url: webhookUrl });
    lastAnswerMs = Date.now();
    if (res.status === 202) accepted.push(String(res.body!.job_id));
    else if (res.status === 429) refused++;
  });
  return { account: a.label, limit: jobs, sent, accepted, refused, lastAnswerMs };
}
