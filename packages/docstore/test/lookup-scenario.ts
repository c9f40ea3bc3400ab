// Mirrored collections for index lookups: the same writes go to a collection with declared indexes
// and to one without, and every query must answer the same from both. Used by the contract (both
// engines) and by the embedded engine's own tests (which also compare unsorted order).
import type { Collection, Filter, FindOptions, IndexSpec } from '../src/index.js';
import type { Item } from './contract.js';

export const T0 = Date.UTC(2024, 0, 1);
const at = (sec: number): Date => new Date(T0 + sec * 1000);

export const LOOKUP_INDEXES: IndexSpec[] = [
  { keys: { accountId: 1, status: 1 } },
  { keys: { status: 1, kind: 1, createdAt: 1 } },
  { keys: { accountId: 1, createdAt: -1 } },
  { keys: { tags: 1 } },
  { keys: { 'owner.id': 1 } },
  { keys: { n: 1 } },
  { keys: { accountId: 1, seq: 1 }, unique: true },
];

export const ROWS = 60;

/** Row i: mixed types, arrays, nested fields, missing and null values on indexed fields. */
export function row(i: number): Item {
  const doc: Item = {
    _id: `r${String(i).padStart(3, '0')}`,
    accountId: `a${i % 4}`,
    seq: i,
    status: ['pending', 'processing', 'done', 'pending', 'failed'][i % 5],
    kind: i % 3 === 0 ? 'sync' : 'async',
    createdAt: at(i),
    n: [1, '1', 2, 3.5, true][i % 5],
    tags: [['red', 'fruit'], ['blue'], [], 'red'][i % 4],
    owner: i % 6 === 0 ? [{ id: 'o1' }, { id: 'o2' }] : { id: `o${i % 3}` },
  };
  if (i % 7 === 0) delete doc.accountId;
  if (i % 11 === 0) doc.status = null;
  return doc;
}

/** Rows in an order that is neither _id nor createdAt order. */
export const insertionOrder = (): number[] => Array.from({ length: ROWS }, (_, k) => (k * 17) % ROWS);

export type LookupQuery = { filter: Filter; options?: FindOptions };

/** Queries whose answer does not depend on the order of equal documents (sorts end on a unique key). */
export const QUERIES: LookupQuery[] = [
  { filter: { accountId: 'a1' } },
  { filter: { accountId: 'a1', status: 'pending' } },
  { filter: { accountId: 'a2', status: { $in: ['pending', 'processing'] } } },
  { filter: { accountId: { $in: ['a1', 'a3'] }, status: 'done' } },
  { filter: { accountId: { $in: [] } } },
  { filter: { accountId: 'nobody' } },
  { filter: { accountId: { $eq: 'a0' }, status: { $ne: 'done' } } },
  { filter: { status: 'pending', kind: 'async' }, options: { sort: { createdAt: 1 }, limit: 1 } },
  { filter: { status: 'pending', kind: 'async', createdAt: { $lt: at(30) } } },
  {
    filter: { status: { $in: ['pending', 'failed'] }, kind: { $in: ['sync', 'async'] } },
    options: { sort: { createdAt: -1 }, skip: 2, limit: 5 },
  },
  {
    filter: { accountId: 'a1', createdAt: { $gte: at(5), $lt: at(50) } },
    options: { sort: { createdAt: -1, _id: -1 }, skip: 1, limit: 4 },
  },
  { filter: { accountId: 'a3', n: { $gt: 1 } } },
  { filter: { tags: 'red' } },
  { filter: { tags: { $in: ['blue', 'fruit', 'green'] } }, options: { sort: { seq: 1 } } },
  { filter: { 'owner.id': 'o1' } },
  { filter: { 'owner.id': { $in: ['o0', 'o2'] }, status: 'pending' } },
  { filter: { n: 1 } },
  { filter: { n: '1' } },
  { filter: { n: { $in: [2, true] } } },
  { filter: { status: null } },
  { filter: { status: { $in: ['done', null] } } },
  { filter: { accountId: 'a2', $or: [{ status: 'pending' }, { kind: 'sync' }] } },
  { filter: { accountId: 'a0', seq: 8 } },
  { filter: { accountId: 'a9' } },
  { filter: { createdAt: at(12) } },
  { filter: {}, options: { sort: { seq: -1 }, limit: 3 } },
];

/** Writes that move documents between index keys (updates, upserts); returns what each answered. */
export async function changeIndexedFields(c: Collection<Item>): Promise<unknown[]> {
  return [
    await c.updateMany({ accountId: 'a1', status: 'pending' }, { $set: { status: 'processing' } }),
    await c.findOneAndUpdate(
      { status: 'pending', kind: 'async' },
      { $set: { status: 'processing' }, $inc: { attempts: 1 } },
      { sort: { createdAt: 1 } },
    ),
    await c.findOneAndUpdate(
      { status: 'pending', kind: 'async' },
      { $set: { status: 'processing' } },
      { sort: { createdAt: 1 }, returnDocument: 'before' },
    ),
    await c.findOneAndUpdate({ _id: 'r010' }, { $push: { tags: 'red' } }),
    await c.findOneAndUpdate({ _id: 'r005' }, { $unset: { accountId: '' } }),
    await c.findOneAndUpdate({ _id: 'r007' }, { $set: { accountId: 'a1', 'owner.id': 'o2' } }),
    await c.findOneAndUpdate({ _id: 'r012' }, { $set: { owner: { id: 'o9' } } }),
    await c.updateMany({ tags: 'blue' }, { $set: { tags: ['green', 'red'] } }),
    await c.updateMany({ status: 'failed' }, { $set: { status: 'pending', n: 2 } }),
    await c.findOneAndUpdate(
      { _id: 'up1', accountId: 'a9', status: 'pending' },
      { $setOnInsert: { seq: 999 }, $inc: { hits: 1 } },
      { upsert: true },
    ),
    await c.findOneAndUpdate({ accountId: 'a9', status: 'pending' }, { $inc: { hits: 1 } }),
    await c.findOneAndUpdate({ accountId: 'a3', status: 'nothing' }, { $set: { x: 1 } }),
  ];
}

/** Deletes through lookups, and inserts a deleted _id again; returns what each answered. */
export async function deleteSome(c: Collection<Item>): Promise<unknown[]> {
  return [
    await c.deleteOne({ accountId: 'a3', createdAt: at(15) }),
    await c.deleteMany({ accountId: 'a2', kind: 'sync' }),
    await c.deleteMany({ tags: 'red', status: 'done' }),
    await c.deleteOne({ 'owner.id': 'o9' }),
    await c.deleteMany({ accountId: 'nobody' }),
    await c.insertOne({ ...row(15), status: 'pending', kind: 'async', createdAt: at(100) }),
  ];
}

/** Both collections give the same documents (and counts) for every query. */
export async function expectSameAnswers(
  indexed: Collection<Item>,
  plain: Collection<Item>,
  queries: LookupQuery[],
  exactOrder: boolean,
): Promise<void> {
  const byId = (a: Item, b: Item) => (a._id < b._id ? -1 : a._id > b._id ? 1 : 0);
  for (const { filter, options } of queries) {
    const inOrder = exactOrder || options?.sort !== undefined;
    const norm = (docs: Item[]) => (inOrder ? docs : [...docs].sort(byId));
    const [a, b] = await Promise.all([indexed.find(filter, options), plain.find(filter, options)]);
    expect({ filter, options, docs: norm(a) }).toEqual({ filter, options, docs: norm(b) });
    expect({ filter, count: await indexed.countDocuments(filter) }).toEqual({ filter, count: await plain.countDocuments(filter) });
    if (inOrder) {
      const sort = options?.sort ? { sort: options.sort } : {};
      expect({ filter, one: await indexed.findOne(filter, sort) }).toEqual({ filter, one: await plain.findOne(filter, sort) });
    }
  }
}
