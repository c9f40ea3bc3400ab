// The compiled matcher answers exactly as mingo's own Query, including the documents whose values
// need mingo's rules (arrays, nested documents), and still refuses JavaScript in filters.
import { Query } from 'mingo';
import { compileMatcher } from '../src/embedded/matcher.js';

const docs = [
  { _id: 'a', s: 'x', n: 1, b: true },
  { _id: 'b', s: 'y', n: 1.0, b: false },
  { _id: 'c', s: ['x', 'z'], n: '1' },
  { _id: 'd', s: { x: 1 }, n: null },
  { _id: 'e', s: new Date(0), n: Number.NaN },
  { _id: 'f', s: [['x']], n: [1, 2] },
  { _id: 'g' },
  { _id: 'h', s: 'w', n: 5, t: new Date(2000), u: 'b' },
  { _id: 'i', s: 'y', n: -3, t: new Date(1000), u: 'a' },
  { _id: 'j', s: 'é', n: 1e300, t: [new Date(1500)], u: ['a', 'c'] },
  { _id: 'k', n: true, t: '1970-01-01T00:00:01.500Z', u: null },
];
const filters = [
  { s: 'x' },
  { n: 1 },
  { s: 'x', n: 1 },
  { b: true },
  { b: false },
  { n: '1' },
  { s: 'z' },
  { n: 2 },
  { n: Number.NaN },
  { s: { $in: ['x', 'y'] } },
  { 'n.0': 1 },
  { s: 'x', b: { $exists: true } },
  { n: { $gt: 1 } },
  { n: { $gte: 1, $lt: 6 } },
  { n: { $lte: -3 } },
  { s: { $gt: 'x' } },
  { s: { $gte: 'w', $lt: 'y' } },
  { t: { $gte: new Date(1000), $lt: new Date(2000) } },
  { t: { $gt: new Date(1200) } },
  { t: new Date(2000) },
  { u: { $in: ['a', 'b'] } },
  { n: { $in: [1, 5, true] } },
  { $or: [{ s: 'x' }, { n: { $lt: 0 } }] },
  { $and: [{ n: { $gte: 1 } }, { $or: [{ u: 'b' }, { s: 'y' }] }] },
  { u: 'a', $or: [{ t: { $lt: new Date(1600) } }, { n: 5 }] },
  { n: { $gt: 1, $lt: 'z' } },
  { n: { $ne: 1 } },
  { $or: [] },
];

test.each(filters.map((f) => [JSON.stringify(f), f] as const))('%s matches what mingo matches', (_name, filter) => {
  const oracle = new Query(filter, { scriptEnabled: false });
  const test = compileMatcher(filter);
  expect(docs.filter((d) => test(d)).map((d) => d._id)).toEqual(docs.filter((d) => oracle.test(d)).map((d) => d._id));
});

test('JavaScript in a filter is refused', () => {
  expect(() => compileMatcher({ $where: 'true' })).toThrow(/scriptEnabled/);
});

test('random filters of the compiled kinds over random documents: the same answers as mingo', () => {
  let seed = 7;
  const rand = (n: number) => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return Math.floor(seed / 65_536) % n; // the high bits: the low ones of this generator cycle
  };
  const values = [0, 1, 2, -1, 1.5, 'a', 'b', 'ab', '', true, false, null, new Date(0), new Date(5), [1, 'a'], { a: 1 }, [new Date(5)]];
  const pick = () => values[rand(values.length)];
  const fields = ['p', 'q', 'r'];
  const randomDocs = Array.from({ length: 60 }, (_, i) => {
    const d: { _id: string; [field: string]: unknown } = { _id: `d${i}` };
    for (const f of fields) if (rand(4) > 0) d[f] = pick();
    return d;
  });
  const scalar = () => [0, 1, 2, 'a', 'b', true, new Date(0), new Date(5)][rand(8)];
  const condition = (): unknown => {
    const k = rand(4);
    if (k === 0) return scalar();
    if (k === 1) return { $in: [scalar(), scalar()].filter((v) => !(v instanceof Date)) };
    const ops = ['$gt', '$gte', '$lt', '$lte'];
    const one = { [ops[rand(4)]!]: scalar() };
    return rand(3) ? one : { ...one, [ops[rand(4)]!]: scalar() };
  };
  const filter = (depth: number): Record<string, unknown> => {
    const f: Record<string, unknown> = { [fields[rand(3)]!]: condition() };
    if (depth > 0 && rand(2)) f[rand(2) ? '$or' : '$and'] = [filter(depth - 1), filter(depth - 1)];
    return f;
  };
  for (let i = 0; i < 400; i++) {
    const f = filter(2);
    const oracle = new Query(f, { scriptEnabled: false });
    const test = compileMatcher(f);
    const ids = (t: (d: (typeof randomDocs)[number]) => boolean) => randomDocs.filter((d) => t(d)).map((d) => d._id);
    expect({ f, ids: ids((d) => test(d)) }).toEqual({ f, ids: ids((d) => oracle.test(d)) });
  }
});
