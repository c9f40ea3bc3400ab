// The embedded engine's index lookups: queries are narrowed to an index's documents, and answers
// (in natural order too, which the contract cannot compare across engines) stay those of a full scan.
import { tempDir } from '@media/testkit';
import { openEmbeddedDocStore, type Collection, type DocStore, type Filter } from '../src/index.js';
import type { EmbeddedCollection } from '../src/embedded/collection.js';
import type { Item } from './contract.js';
import {
  changeIndexedFields,
  deleteSome,
  expectSameAnswers,
  insertionOrder,
  LOOKUP_INDEXES,
  QUERIES,
  row,
  type LookupQuery,
} from './lookup-scenario.js';

let dir: { path: string; remove: () => Promise<void> };
const open: DocStore[] = [];
let counter = 0;
beforeAll(async () => {
  dir = await tempDir('docstore-lookups-');
});
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
});
afterAll(async () => {
  await dir.remove();
});

async function store(database = `db${++counter}`, compactAfterOps?: number): Promise<DocStore> {
  const s = await openEmbeddedDocStore({ dataDir: dir.path, database, ttlIntervalMs: 50, ...(compactAfterOps ? { compactAfterOps } : {}) });
  open.push(s);
  return s;
}

const explain = (c: Collection<Item>, filter: Filter) => (c as unknown as EmbeddedCollection<Item>).explain(filter);

async function mirrors(s: DocStore, create = true) {
  const indexed = s.collection<Item>('indexed');
  const plain = s.collection<Item>('plain');
  if (create) for (const spec of LOOKUP_INDEXES) await indexed.createIndex(spec);
  return { indexed, plain };
}

/** Answers whose order rests on natural order: unsorted pages, ties in a sort, findOne. */
const ORDERED_QUERIES: LookupQuery[] = [
  ...QUERIES,
  { filter: { status: 'pending' }, options: { skip: 1, limit: 3 } },
  { filter: { accountId: 'a1' }, options: { sort: { status: 1 } } },
  { filter: { accountId: { $in: ['a0', 'a2'] }, status: { $in: ['pending', 'done'] } }, options: { sort: { kind: -1 }, limit: 4 } },
  { filter: { tags: { $in: ['red', 'fruit', 'blue'] } } },
  { filter: { 'owner.id': { $in: ['o1', 'o2'] } }, options: { sort: { kind: 1 }, skip: 2 } },
];

describe('embedded index lookups', () => {
  it('narrows candidates to the smallest index lookup', async () => {
    const { indexed } = await mirrors(await store());
    for (const i of insertionOrder()) await indexed.insertOne(row(i));
    const count = (filter: Filter) => indexed.countDocuments(filter);
    const check = async (filter: Filter, index: string | null) => {
      const plan = explain(indexed, filter);
      expect({ filter, index: plan.index }).toEqual({ filter, index });
      return plan.candidates;
    };
    expect(await check({ accountId: 'a1', status: 'pending' }, 'accountId_1_status_1')).toBe(
      await count({ accountId: 'a1', status: 'pending' }),
    );
    expect(await check({ accountId: 'a2', status: { $in: ['pending', 'done'] } }, 'accountId_1_status_1')).toBe(
      await count({ accountId: 'a2', status: { $in: ['pending', 'done'] } }),
    );
    expect(await check({ status: 'pending', kind: 'async' }, 'status_1_kind_1_createdAt_1')).toBe(
      await count({ status: 'pending', kind: 'async' }),
    );
    expect(await check({ tags: 'red' }, 'tags_1')).toBe(await count({ tags: 'red' }));
    expect(await check({ 'owner.id': 'o1' }, 'owner.id_1')).toBe(await count({ 'owner.id': 'o1' }));
    // A prefix of a unique index serves as a plain lookup; its full key as the unique one.
    expect(await check({ accountId: 'a3', n: { $gt: 1 } }, expect.stringMatching(/^accountId_1_/) as never)).toBe(
      await count({ accountId: 'a3' }),
    );
    expect(await check({ accountId: 'a0', seq: 8 }, 'accountId_1_seq_1')).toBe(1);
    expect(await check({ accountId: 'nobody' }, expect.any(String) as never)).toBe(0);
    // No usable equality: null, ranges, regexes, objects scan everything.
    for (const filter of [
      { status: null },
      { n: { $gt: 1 } },
      { accountId: /a1/ },
      { owner: { id: 'o1' } },
      { status: { $in: ['done', null] } },
    ]) {
      expect(await check(filter, null)).toBe(60);
    }
  });

  it('follows updates, deletes and TTL expiry in the lookups', async () => {
    const { indexed } = await mirrors(await store());
    await indexed.createIndex({ keys: { expiresAt: 1 }, expireAfterSeconds: 0 });
    for (let i = 0; i < 10; i++)
      await indexed.insertOne({ _id: `j${i}`, accountId: 'a', seq: i, status: 'pending', expiresAt: new Date(Date.now() + 3_600_000) });
    expect(explain(indexed, { accountId: 'a', status: 'pending' }).candidates).toBe(10);
    await indexed.updateMany({ _id: { $in: ['j1', 'j2', 'j3'] } }, { $set: { status: 'done' } });
    await indexed.findOneAndUpdate({ accountId: 'a', status: 'pending' }, { $set: { accountId: 'b' } });
    await indexed.deleteOne({ _id: 'j4' });
    expect(explain(indexed, { accountId: 'a', status: 'pending' }).candidates).toBe(5);
    expect(explain(indexed, { accountId: 'a', status: 'done' }).candidates).toBe(3);
    expect(explain(indexed, { accountId: 'b' }).candidates).toBe(1);
    await indexed.updateMany({ _id: { $in: ['j5', 'j6'] } }, { $set: { expiresAt: new Date(Date.now() - 1) } });
    const deadline = Date.now() + 5000;
    while (Date.now() < deadline && (await indexed.countDocuments({})) > 7) await new Promise((r) => setTimeout(r, 50));
    expect(explain(indexed, { accountId: 'a', status: 'pending' })).toEqual({ index: 'accountId_1_status_1', candidates: 3 });
    expect((await indexed.find({ accountId: 'a', status: 'pending' })).map((d) => d._id)).toEqual(['j7', 'j8', 'j9']);
  });

  it('keeps natural order and full-scan answers through writes, reopen and compaction', async () => {
    const db = `ordered${++counter}`;
    const first = await store(db, 40);
    const { indexed, plain } = await mirrors(first);
    for (const i of insertionOrder()) for (const c of [indexed, plain]) await c.insertOne(row(i));
    await expectSameAnswers(indexed, plain, ORDERED_QUERIES, true);
    expect(await changeIndexedFields(indexed)).toEqual(await changeIndexedFields(plain));
    await expectSameAnswers(indexed, plain, ORDERED_QUERIES, true);
    // Nothing to wait for: each write above resolved once its batch was in the log, compacting
    // once the log passed 40 operations (flushDelayMs 0).
    expect(await deleteSome(indexed)).toEqual(await deleteSome(plain));
    await expectSameAnswers(indexed, plain, ORDERED_QUERIES, true);
    await first.close();
    const again = await mirrors(await store(db), false);
    expect(explain(again.indexed, { accountId: 'a1', status: 'pending' }).index).toBe('accountId_1_status_1');
    await expectSameAnswers(again.indexed, again.plain, ORDERED_QUERIES, true);
    expect(await changeIndexedFields(again.indexed)).toEqual(await changeIndexedFields(again.plain));
    await expectSameAnswers(again.indexed, again.plain, ORDERED_QUERIES, true);
  });

  it('matches a full scan over many random writes', async () => {
    const { indexed, plain } = await mirrors(await store());
    let seed = 42;
    let answered = 0;
    const rand = (n: number) => {
      // mulberry32
      seed = (seed + 0x6d2b79f5) | 0;
      let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((((t ^ (t >>> 14)) >>> 0) / 2 ** 32) * n) | 0;
    };
    const pick = <T>(xs: T[]): T => xs[rand(xs.length)]!;
    const accounts = ['a0', 'a1', 'a2'];
    const statuses = ['pending', 'processing', 'done'];
    const value = () => pick<unknown>([pick(statuses), pick(accounts), 1, '1', null, [pick(statuses), 'x'], { id: 'o1' }]);
    for (let step = 0; step < 600; step++) {
      const id = `d${rand(40)}`;
      const filter: Filter = pick<Filter>([
        { accountId: pick(accounts) },
        { accountId: pick(accounts), status: pick(statuses) },
        { status: { $in: [pick(statuses), pick(statuses)] }, kind: pick(['sync', 'async']) },
        { tags: pick(['red', 'blue', 'x']) },
        { 'owner.id': pick(['o1', 'o2']) },
        { n: pick<unknown>([1, '1', 2]) },
      ]);
      const field = pick(['accountId', 'status', 'kind', 'tags', 'owner.id', 'owner', 'n']);
      const op = rand(8);
      const run = async (c: Collection<Item>) => {
        try {
          if (op >= 6)
            return await c.insertOne({
              _id: id,
              accountId: pick(accounts),
              status: pick(statuses),
              kind: 'async',
              seq: step,
              tags: ['red'],
            });
          if (op === 1) return await c.findOneAndUpdate({ _id: id }, { $set: { [field]: value() } });
          if (op === 2) return await c.updateMany(filter, { $set: { [field]: value() } });
          if (op === 3) return await c.findOneAndUpdate(filter, { $unset: { [field]: '' } }, { sort: { seq: -1 } });
          if (op === 4) return await c.deleteOne(filter);
          return await c.deleteMany({ _id: id });
        } catch (err) {
          return (err as Error).name;
        }
      };
      // The same random choices for both: run indexed, rewind the generator, run plain.
      const saved = seed;
      const a = await run(indexed);
      const after = seed;
      seed = saved;
      const b = await run(plain);
      seed = after;
      expect({ step, result: a }).toEqual({ step, result: b });
      const docs = await indexed.find(filter);
      expect({ step, docs }).toEqual({ step, docs: await plain.find(filter) });
      answered += docs.length;
      expect(explain(indexed, filter).index).not.toBeNull();
    }
    expect(await plain.countDocuments({})).toBeGreaterThan(10);
    expect(answered).toBeGreaterThan(1000);
  });
});
