// One invariant's outcome: held or not, a one-line summary, the violations (capped in the report)
// and the figures behind it.
export interface Verdict {
  name: string;
  ok: boolean;
  summary: string;
  violations: string[];
  figures: Record<string, number | string>;
}

export const verdict = (name: string, summary: string, violations: string[], figures: Record<string, number | string>): Verdict => ({
  name,
  ok: violations.length === 0,
  summary,
  violations,
  figures,
});

export const TERMINAL = ['completed', 'failed', 'cancelled'];

export function countBy<T>(items: T[], key: (t: T) => string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const i of items) out[key(i)] = (out[key(i)] ?? 0) + 1;
  return out;
}
