// Every charged answer (a sync run's or a probe's 200, a completed job) has exactly one usage row,
// failed and cancelled jobs none. A row for no known request is explained only by a request that
// got no answer (the client cannot know its id); more of them than such requests, or one charge
// recorded under several request ids (same key, time and amounts), is a doubled charge.
import type { RunData } from '../record.js';
import { verdict, type Verdict } from './verdict.js';

export function checkCharges(data: Pick<RunData, 'calls' | 'finalJobs' | 'usage'>): Verdict {
  const violations: string[] = [];
  const charged = new Map<string, string>();
  for (const c of data.calls)
    if ((c.op === 'sync' || c.op === 'probe') && c.status === 200 && c.requestId) charged.set(c.requestId, c.account);
  const never = new Set<string>();
  for (const j of data.finalJobs) {
    if (j.status === 'completed') charged.set(j.id, j.account);
    if (j.status === 'failed' || j.status === 'cancelled') never.add(j.id);
  }
  const rows = new Map<string, RunData['usage']>();
  for (const r of data.usage) rows.set(r.request_id, [...(rows.get(r.request_id) ?? []), r]);

  let once = 0;
  for (const [id, account] of charged) {
    const n = rows.get(id)?.length ?? 0;
    if (n === 1) once++;
    else violations.push(`${id} (${account}): ${n === 0 ? 'not charged' : `charged ${n} times`}`);
  }
  for (const id of never) if (rows.has(id)) violations.push(`${id}: charged, but the job ${'ended without completing'}`);

  // Rows for no request the client knows, per account, against its requests that got no answer.
  const unknown = data.usage.filter((r) => !charged.has(r.request_id) && !never.has(r.request_id));
  const unanswered = new Map<string, number>();
  for (const c of data.calls)
    if ((c.op === 'sync' || c.op === 'probe') && (c.status === undefined || c.notJson))
      unanswered.set(c.account, (unanswered.get(c.account) ?? 0) + 1);
  const unknownBy = new Map<string, number>();
  for (const r of unknown) unknownBy.set(r.account, (unknownBy.get(r.account) ?? 0) + 1);
  for (const [account, n] of unknownBy) {
    const may = unanswered.get(account) ?? 0;
    if (n > may) violations.push(`${account}: ${n} charges for no answered request, but only ${may} requests went unanswered`);
  }

  // The same charge (key, completion time, amounts) under more than one request id.
  const byContent = new Map<string, string[]>();
  for (const r of data.usage) {
    const k = `${r.account} ${r.key_id} ${r.completed_at} ${r.gb_sec} ${r.amount_usd}`;
    byContent.set(k, [...(byContent.get(k) ?? []), r.request_id]);
  }
  let doubled = 0;
  for (const ids of byContent.values())
    if (new Set(ids).size > 1) {
      doubled++;
      violations.push(`doubled charge: one charge recorded under ${ids.length} request ids (${ids.join(', ')})`);
    }
  const amount = data.usage.reduce((a, r) => a + r.amount_usd, 0);
  return verdict(
    'charged exactly once',
    `${charged.size} charged answers, ${data.usage.length} usage rows (${once} exactly once), ${unknown.length} for no known request, ${doubled} doubled; $${amount.toFixed(6)}`,
    violations,
    {
      chargedAnswers: charged.size,
      usageRows: data.usage.length,
      exactlyOnce: once,
      forUnknownRequest: unknown.length,
      doubled,
      amountUsd: Number(amount.toFixed(9)),
    },
  );
}
