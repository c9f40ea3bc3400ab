// Only the spec's answers: 5xx only as 503 with Retry-After or, for a job (sync run, probe), its
// documented 500 carrying the error; 429 with Retry-After; never a hang past the client's timeout.
// Two things are the faults' own, counted but not held against the service: what the balancer
// answers (or resets) for requests in flight on a gateway killed with SIGKILL, and signed-URL
// requests (they go to the store, not the service) while the store is paused. A drained gateway
// is owed nothing: it leaves the balancer before its SIGTERM, as the chart's preStop sleep does.
import type { Call, FaultRecord } from '../record.js';
import { countBy, verdict, type Verdict } from './verdict.js';

/** After a gateway's SIGKILL, the balancer's answers for its requests in flight (its check interval and then some). */
export const GATEWAY_KILL_GRACE_MS = 10_000;

const during = (c: Call, f: FaultRecord, graceMs = 0) => c.startMs <= f.endMs + graceMs && c.endMs >= f.startMs;

export function excusedBy(c: Call, faults: FaultRecord[]): string | undefined {
  for (const f of faults) {
    if (c.path === 'signed-url' && f.kind === 'pause-store' && during(c, f)) return 'the store was paused';
    const gatewayKilled = f.kind === 'kill-replica' && f.targets.some((t) => t.startsWith('gateway-'));
    if (
      gatewayKilled &&
      c.path !== 'signed-url' &&
      c.startMs <= f.startMs + GATEWAY_KILL_GRACE_MS &&
      c.endMs >= f.startMs &&
      (c.status === undefined || c.notJson)
    )
      return 'its gateway was killed';
  }
  return undefined;
}

function problem(c: Call): string | undefined {
  if (c.timedOut) return 'no answer within the client timeout (a hang)';
  if (c.status === undefined) return `no answer: ${c.transportError}`;
  if (c.path === 'signed-url') return c.status >= 500 ? `the store answered ${c.status}` : undefined;
  if (c.notJson) return `${c.status} not from the service (${(c.error ?? '').replace(/\s+/g, ' ').slice(0, 80)})`;
  if ((c.status === 429 || c.status === 503) && !c.retryAfter) return `${c.status} without Retry-After (${c.error})`;
  if (c.status === 503 || c.status < 500) return undefined;
  if (c.status === 500 && (c.op === 'sync' || c.op === 'probe')) return undefined;
  return `${c.status}: ${c.error}`;
}

export function checkAnswers(calls: Call[], faults: FaultRecord[]): Verdict {
  const violations: string[] = [];
  let excused = 0;
  for (const c of calls) {
    const p = problem(c);
    if (!p) continue;
    if (excusedBy(c, faults)) excused++;
    else violations.push(`${c.method} ${c.path} (${c.op}, ${c.account}) at ${new Date(c.startMs).toISOString().slice(11, 23)}: ${p}`);
  }
  const statuses = countBy(calls, (c) => (c.timedOut ? 'hang' : c.status === undefined ? 'no answer' : String(c.status)));
  const hangs = calls.filter((c) => c.timedOut).length;
  const with503 = calls.filter((c) => c.status === 503).length;
  return verdict(
    'only spec answers, no hang',
    `${calls.length} requests: ${Object.entries(statuses)
      .sort()
      .map(([s, n]) => `${n}x ${s}`)
      .join(', ')}; ${excused} excused by a fault`,
    violations,
    {
      requests: calls.length,
      hangs,
      status503: with503,
      excused,
      ...Object.fromEntries(Object.entries(statuses).map(([s, n]) => [`status ${s}`, n])),
    },
  );
}
