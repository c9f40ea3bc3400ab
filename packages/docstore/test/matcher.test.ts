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
];

test.each(filters.map((f) => [JSON.stringify(f), f] as const))('%s matches what mingo matches', (_name, filter) => {
  const oracle = new Query(filter, { scriptEnabled: false });
  const test = compileMatcher(filter);
  expect(docs.filter((d) => test(d)).map((d) => d._id)).toEqual(docs.filter((d) => oracle.test(d)).map((d) => d._id));
});

test('JavaScript in a filter is refused', () => {
  expect(() => compileMatcher({ $where: 'true' })).toThrow(/scriptEnabled/);
});
