// Recovery: after the last fault is repaired, the time until successful requests per second are
// back to at least RECOVERED of the median before the first fault (over a sliding window), with
// no manual step. Over RECOVERY_BOUND_MS, or not before the load stopped, is a violation.
import type { Call, FaultRecord } from '../record.js';
import { verdict, type Verdict } from './verdict.js';

export const RECOVERY_BOUND_MS = 60_000;
export const RECOVERED = 0.8;
const BUCKET_MS = 5000;
const WINDOW_MS = 10_000;
const STEP_MS = 1000;

const LOAD_OPS = new Set(['sync', 'async', 'probe', 'file', 'put', 'download', 'usage']);

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

export function checkRecovery(calls: Call[], faults: FaultRecord[], loadStartMs: number, loadEndMs: number): Verdict {
  const ok = calls.filter((c) => LOAD_OPS.has(c.op) && c.status !== undefined && c.status >= 200 && c.status < 300).map((c) => c.endMs);
  const rate = (from: number, to: number) => ok.filter((t) => t >= from && t < to).length / ((to - from) / 1000);
  if (!faults.length) return verdict('recovery after the last fault', 'no fault injected', [], {});
  const firstFault = Math.min(...faults.map((f) => f.startMs));
  const lastRepair = Math.max(...faults.map((f) => f.endMs));
  const buckets: number[] = [];
  for (let t = loadStartMs; t + BUCKET_MS <= firstFault; t += BUCKET_MS) buckets.push(rate(t, t + BUCKET_MS));
  if (!buckets.length)
    return verdict(
      'recovery after the last fault',
      'no baseline before the first fault',
      ['no full 5 s before the first fault to measure a baseline'],
      {},
    );
  const baseline = median(buckets);
  const target = baseline * RECOVERED;
  let recoveredAt: number | undefined;
  for (let t = lastRepair; t + WINDOW_MS <= loadEndMs; t += STEP_MS)
    if (rate(t, t + WINDOW_MS) >= target) {
      recoveredAt = t;
      break;
    }
  const figures = {
    baselinePerSec: Number(baseline.toFixed(2)),
    targetPerSec: Number(target.toFixed(2)),
    boundMs: RECOVERY_BOUND_MS,
  } as Record<string, number>;
  if (recoveredAt === undefined)
    return verdict(
      'recovery after the last fault',
      `not back to ${target.toFixed(2)} successful requests/s before the load stopped`,
      [
        `throughput not back to ${RECOVERED * 100}% of the pre-fault median (${baseline.toFixed(2)}/s) in the ${((loadEndMs - lastRepair) / 1000).toFixed(0)} s after the last repair`,
      ],
      figures,
    );
  const recoveryMs = recoveredAt - lastRepair;
  figures.recoveryMs = recoveryMs;
  return verdict(
    'recovery after the last fault',
    `back to ${RECOVERED * 100}% of the pre-fault ${baseline.toFixed(2)} successful requests/s ${(recoveryMs / 1000).toFixed(0)} s after the last repair (bound ${RECOVERY_BOUND_MS / 1000} s)`,
    recoveryMs > RECOVERY_BOUND_MS ? [`recovery took ${(recoveryMs / 1000).toFixed(0)} s, over ${RECOVERY_BOUND_MS / 1000} s`] : [],
    figures,
  );
}
