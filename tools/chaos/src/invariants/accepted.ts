// The async jobs the service accepted (202), by id, with their account: what the end checks owe.
import type { Call } from '../record.js';

export function acceptedJobs(calls: Call[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const c of calls)
    if ((c.op === 'async' || c.op === 'burst-jobs') && c.status === 202 && c.requestId) out.set(c.requestId, c.account);
  return out;
}
