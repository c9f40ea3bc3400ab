// The embedded engine's partial sort must pick exactly what a full mingo sort puts first.
import { Query } from 'mingo';
import type { Doc, Sort } from '../src/index.js';
import { topK } from '../src/embedded/topk.js';

let seed = 7;
function rand(n: number): number {
  // mulberry32
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return Math.floor((((t ^ (t >>> 14)) >>> 0) / 2 ** 32) * n);
}
const pick = <T>(xs: T[]): T => xs[rand(xs.length)]!;

const STRINGS = ['a', 'b', 'B', 'aa', '', 'é', 'z'];
const NUMBERS = [1, 2, 2.5, -3, 0, Infinity, 1e9];
const DATES = [0, 1, 2, 1_700_000_000_000].map((t) => new Date(t));

function doc(i: number): Doc {
  const d: Doc = { _id: `id${rand(1000)}_${i}`, s: pick(STRINGS), n: pick(NUMBERS), d: new Date(pick(DATES).getTime()) };
  // Some documents break the uniform kinds the fast path needs.
  if (rand(20) === 0) d.mixed = pick<unknown>(['x', 1, null, [1], new Date(0), -0, NaN]);
  else d.mixed = pick(STRINGS);
  return d;
}

const mingoTop = (docs: Doc[], sort: Sort, k: number): Doc[] => new Query({}).find<Doc>(docs).sort(sort).all().slice(0, k);

describe('topK', () => {
  it('returns what a full mingo sort returns first, or declines', () => {
    let used = 0;
    for (let round = 0; round < 3000; round++) {
      const docs = Array.from({ length: rand(40) }, (_, i) => doc(i));
      const fields = ['s', 'n', 'd', '_id', 'mixed'].filter(() => rand(2) === 0).slice(0, 1 + rand(3));
      if (fields.length === 0) fields.push('d');
      const sort: Sort = Object.fromEntries(fields.map((f) => [f, pick([1, -1] as const)]));
      const k = 1 + rand(12);
      const fast = topK(docs, sort, k);
      if (fast === null) continue;
      used++;
      expect({ round, sort, k, ids: fast.map((d) => d._id) }).toEqual({ round, sort, k, ids: mingoTop(docs, sort, k).map((d) => d._id) });
    }
    expect(used).toBeGreaterThan(2000);
  });

  it('declines what it cannot order as mingo does', () => {
    const docs: Doc[] = [
      { _id: 'a', v: 1, o: { x: 1 } },
      { _id: 'b', v: 'one', o: { x: 2 } },
    ];
    expect(topK(docs, { v: 1 }, 1)).toBeNull(); // mixed kinds
    expect(topK(docs, { 'o.x': 1 }, 1)).toBeNull(); // dotted path
    expect(topK(docs, { missing: 1 }, 1)).toBeNull();
    expect(topK([{ _id: 'a', v: -0 }], { v: 1 }, 1)).toBeNull();
    expect(topK(docs, { _id: 1 }, 101)).toBeNull(); // too many to be worth it
    expect(topK(docs, { _id: -1 }, 1)!.map((d) => d._id)).toEqual(['b']);
  });
});
