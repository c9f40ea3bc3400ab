// The first k documents in sort order without sorting them all (e.g. claiming the oldest pending
// job among many: k = 1). Only where the answer is certainly mingo's: top-level sort fields whose
// values are all strings, all numbers or all Dates for each field. mingo's $sort is then a stable
// lexicographic sort (equal keys keep natural order, for -1 too), which this reproduces.
import type { Doc, Sort } from '../types.js';

/** Beyond this, sorting everything is as good. */
const MAX_K = 100;

type Kind = 'string' | 'number' | 'date';

function kindOf(v: unknown): Kind | null {
  if (typeof v === 'string') return 'string';
  // NaN and -0 sort and group in ways of their own in mingo: leave those to it.
  if (typeof v === 'number') return Number.isNaN(v) || Object.is(v, -0) ? null : 'number';
  if (v instanceof Date) return Number.isNaN(v.getTime()) ? null : 'date';
  return null;
}

const cmp = (a: string | number, b: string | number): number => (a < b ? -1 : a > b ? 1 : 0);

/**
 * The first `k` of `docs` (in natural order) under `sort`, or null when this cannot be sure to
 * order them as mingo would (the caller then sorts everything with mingo).
 */
export function topK(docs: Doc[], sort: Sort, k: number): Doc[] | null {
  const fields = Object.keys(sort);
  if (k > MAX_K || fields.length === 0 || fields.some((f) => f.includes('.'))) return null;
  const dirs = fields.map((f) => (sort[f] === -1 ? -1 : 1));
  const kinds: Array<Kind | null> = fields.map(() => null);
  const best: Array<{ doc: Doc; key: Array<string | number> }> = [];
  // Negative when a sorts before b; 0 when equal on every field.
  const compare = (a: Array<string | number>, b: Array<string | number>): number => {
    for (let i = 0; i < a.length; i++) {
      const c = cmp(a[i]!, b[i]!);
      if (c !== 0) return c * dirs[i]!;
    }
    return 0;
  };
  for (const doc of docs) {
    const key: Array<string | number> = [];
    for (let i = 0; i < fields.length; i++) {
      const v = doc[fields[i]!];
      const kind = kindOf(v);
      if (kind === null || (kinds[i] !== null && kinds[i] !== kind)) return null;
      kinds[i] = kind;
      key.push(kind === 'date' ? (v as Date).getTime() : (v as string | number));
    }
    if (best.length === k && compare(key, best[k - 1]!.key) >= 0) continue;
    // After every entry it does not sort before: equal keys stay in natural order.
    let at = best.length;
    while (at > 0 && compare(key, best[at - 1]!.key) < 0) at--;
    best.splice(at, 0, { doc, key });
    if (best.length > k) best.pop();
  }
  return best.map((b) => b.doc);
}
