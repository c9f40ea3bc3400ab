// The run's report: printed for a person, and as JSON (--report) with every figure and violation.
import type { ChaosResult } from './run.js';

/** Violations listed per invariant in the printed report (the JSON has them all). */
const SHOWN = 10;

export function printable(r: ChaosResult, minutes: number, replicas: number): string {
  const t0 = r.data.startedMs;
  const at = (ms: number) => `+${((ms - t0) / 1000).toFixed(1)}s`;
  const lines = [
    `chaos report: seed ${r.seed}, ${minutes} min of load, ${replicas} replicas: ${r.ok ? 'every invariant held' : 'INVARIANTS BROKEN'}`,
    '',
    `faults (${r.data.faults.length}):`,
    ...r.data.faults.map(
      (f) =>
        `  ${at(f.startMs).padStart(8)} to ${at(f.endMs).padEnd(8)} ${f.kind.padEnd(15)} ${f.targets.join(',')}${f.error ? `  (error: ${f.error})` : ''}`,
    ),
    '',
    'invariants:',
  ];
  for (const v of r.verdicts) {
    lines.push(`  [${v.ok ? 'ok' : 'BROKEN'}] ${v.name}: ${v.summary}`);
    for (const x of v.violations.slice(0, SHOWN)) lines.push(`      - ${x}`);
    if (v.violations.length > SHOWN) lines.push(`      ... and ${v.violations.length - SHOWN} more (see the JSON report)`);
  }
  return lines.join('\n');
}

export function jsonReport(r: ChaosResult, minutes: number, replicas: number): object {
  return {
    ok: r.ok,
    seed: r.seed,
    minutes,
    replicas,
    startedAt: new Date(r.data.startedMs).toISOString(),
    loadEndedAt: new Date(r.data.loadEndMs).toISOString(),
    faults: r.data.faults.map((f) => ({ ...f, startAt: new Date(f.startMs).toISOString(), endAt: new Date(f.endMs).toISOString() })),
    invariants: r.verdicts,
    failedJobErrors: failedJobErrors(r),
  };
}

/** Why jobs failed, by error text (from their webhooks). */
export function failedJobErrors(r: ChaosResult): Record<string, number> {
  const out: Record<string, number> = {};
  const seen = new Set<string>();
  for (const w of r.data.webhooks) {
    try {
      const b = JSON.parse(w.body) as { job_id: string; status: string; error?: string };
      if (b.status !== 'failed' || seen.has(b.job_id)) continue;
      seen.add(b.job_id);
      out[b.error ?? '?'] = (out[b.error ?? '?'] ?? 0) + 1;
    } catch {}
  }
  return out;
}
