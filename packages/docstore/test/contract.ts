// The behaviour every DocStore engine must show. Run by embedded.test.ts (embedded engine) and
// mongo.test.ts (official driver against the wire test server, or a real MongoDB via MONGODB_URL).
import { DuplicateKeyError, type Doc, type DocStore } from '../src/index.js';
import { runQueryContract } from './contract-queries.js';
import { runUpdateContract } from './contract-updates.js';
import { runIndexContract } from './contract-indexes.js';
import { runConcurrencyContract } from './contract-concurrency.js';
import { runLookupContract } from './contract-lookups.js';

/** Opens a store on the named database; the same name must reach the same data. */
export type OpenStore = (database: string) => Promise<DocStore>;

export interface ContractOptions {
  /** How long to wait for a TTL index to remove documents (real MongoDB sweeps every 60 s). */
  ttlWaitMs?: number;
}

/** Per-test helper: fresh databases, closed after each test. */
export interface ContractContext {
  /** A store on a database no other test uses. */
  fresh(): Promise<DocStore>;
  /** A store on a named database (for close/reopen). */
  open(database: string): Promise<DocStore>;
  ttlWaitMs: number;
}

export type Item = Doc & Record<string, unknown>;

let counter = 0;

export function runDocStoreContract(name: string, open: OpenStore, options: ContractOptions = {}): void {
  describe(`DocStore contract: ${name}`, () => {
    const opened: DocStore[] = [];
    const ctx: ContractContext = {
      fresh: () => ctx.open(`contract_${process.pid}_${++counter}`),
      open: async (database) => {
        const store = await open(database);
        opened.push(store);
        return store;
      },
      ttlWaitMs: options.ttlWaitMs ?? 15_000,
    };
    afterEach(async () => {
      await Promise.all(opened.splice(0).map((s) => s.close().catch(() => {})));
    });

    runCrudContract(ctx);
    runQueryContract(ctx);
    runUpdateContract(ctx);
    runIndexContract(ctx);
    runConcurrencyContract(ctx);
    runLookupContract(ctx);
  });
}

function runCrudContract(ctx: ContractContext): void {
  describe('CRUD', () => {
    it('inserts and finds by _id; returned documents are copies', async () => {
      const c = (await ctx.fresh()).collection<Item>('items');
      await c.insertOne({ _id: 'a', n: 1, nested: { k: 'v' }, list: [1, 2] });
      const got = await c.findOne({ _id: 'a' });
      expect(got).toEqual({ _id: 'a', n: 1, nested: { k: 'v' }, list: [1, 2] });
      (got!.nested as Record<string, unknown>).k = 'changed';
      expect(await c.findOne({ _id: 'a' })).toEqual({ _id: 'a', n: 1, nested: { k: 'v' }, list: [1, 2] });
      expect(await c.findOne({ _id: 'missing' })).toBeNull();
    });

    it('does not keep a reference to the inserted object', async () => {
      const c = (await ctx.fresh()).collection<Item>('items');
      const doc: Item = { _id: 'a', tags: ['x'] };
      await c.insertOne(doc);
      (doc.tags as string[]).push('y');
      expect(await c.findOne({ _id: 'a' })).toEqual({ _id: 'a', tags: ['x'] });
    });

    it('stores undefined fields as null, as the MongoDB driver does', async () => {
      const c = (await ctx.fresh()).collection<Item>('items');
      await c.insertOne({ _id: 'u', a: undefined, o: { b: undefined } });
      expect(await c.findOne({ _id: 'u' })).toEqual({ _id: 'u', a: null, o: { b: null } });
      expect(await c.countDocuments({ a: null })).toBe(1);
    });

    it('rejects a second document with the same _id', async () => {
      const c = (await ctx.fresh()).collection<Item>('items');
      await c.insertOne({ _id: 'a', v: 1 });
      await expect(c.insertOne({ _id: 'a', v: 2 })).rejects.toBeInstanceOf(DuplicateKeyError);
      expect(await c.findOne({ _id: 'a' })).toEqual({ _id: 'a', v: 1 });
      expect(await c.countDocuments({})).toBe(1);
    });

    it('deletes one or many and reports what it did', async () => {
      const c = (await ctx.fresh()).collection<Item>('items');
      for (const [i, kind] of ['x', 'x', 'y', 'x'].entries()) await c.insertOne({ _id: `d${i}`, kind });
      expect(await c.deleteOne({ kind: 'y' })).toBe(true);
      expect(await c.deleteOne({ kind: 'y' })).toBe(false);
      expect(await c.deleteMany({ kind: 'x' })).toBe(3);
      expect(await c.deleteMany({ kind: 'x' })).toBe(0);
      expect(await c.countDocuments({})).toBe(0);
    });

    it('counts with and without a filter', async () => {
      const c = (await ctx.fresh()).collection<Item>('items');
      for (let i = 0; i < 7; i++) await c.insertOne({ _id: `c${i}`, even: i % 2 === 0 });
      expect(await c.countDocuments({})).toBe(7);
      expect(await c.countDocuments({ even: true })).toBe(4);
      expect(await c.countDocuments({ even: 'no' })).toBe(0);
    });

    it('round-trips Dates (top level, nested, in arrays) and queries by them', async () => {
      const c = (await ctx.fresh()).collection<Item>('items');
      const t1 = new Date('2024-03-01T10:00:00.123Z');
      const t2 = new Date('2024-03-02T10:00:00.000Z');
      await c.insertOne({ _id: 'a', at: t1, meta: { seen: t2 }, history: [t1, t2] });
      await c.insertOne({ _id: 'b', at: t2 });
      const got = await c.findOne({ _id: 'a' });
      expect(got!.at).toBeInstanceOf(Date);
      expect((got!.at as Date).getTime()).toBe(t1.getTime());
      expect((got!.meta as { seen: Date }).seen).toEqual(t2);
      expect(got!.history).toEqual([t1, t2]);
      expect((await c.find({ at: { $lt: t2 } })).map((d) => d._id)).toEqual(['a']);
      expect((await c.find({ at: t2 })).map((d) => d._id)).toEqual(['b']);
    });

    it('keeps collections and databases apart', async () => {
      const s1 = await ctx.fresh();
      const s2 = await ctx.fresh();
      await s1.collection<Item>('a').insertOne({ _id: 'x', from: 's1a' });
      await s1.collection<Item>('b').insertOne({ _id: 'x', from: 's1b' });
      await s2.collection<Item>('a').insertOne({ _id: 'x', from: 's2a' });
      expect(await s1.collection<Item>('a').findOne({ _id: 'x' })).toEqual({ _id: 'x', from: 's1a' });
      expect(await s1.collection<Item>('b').findOne({ _id: 'x' })).toEqual({ _id: 'x', from: 's1b' });
      expect(await s2.collection<Item>('a').findOne({ _id: 'x' })).toEqual({ _id: 'x', from: 's2a' });
      expect(await s2.collection<Item>('b').countDocuments({})).toBe(0);
    });

    it('answers ping and exposes the collection name', async () => {
      const store = await ctx.fresh();
      await expect(store.ping()).resolves.toBeUndefined();
      expect(store.collection('named').name).toBe('named');
    });

    it('works the same for persistent: false collections', async () => {
      const c = (await ctx.fresh()).collection<Item>('counters', { persistent: false });
      await c.createIndex({ keys: { key: 1 }, unique: true });
      await c.insertOne({ _id: 'k1', key: 'a', hits: 0 });
      expect(await c.findOneAndUpdate({ key: 'a' }, { $inc: { hits: 2 } })).toEqual({ _id: 'k1', key: 'a', hits: 2 });
      await expect(c.insertOne({ _id: 'k2', key: 'a', hits: 0 })).rejects.toBeInstanceOf(DuplicateKeyError);
      expect(await c.deleteMany({})).toBe(1);
    });

    it('keeps data across close and reopen', async () => {
      const db = `persist_${process.pid}_${++counter}`;
      const first = await ctx.open(db);
      const c = first.collection<Item>('items');
      await c.createIndex({ keys: { email: 1 }, unique: true });
      const at = new Date('2023-01-02T03:04:05.006Z');
      for (let i = 0; i < 20; i++) await c.insertOne({ _id: `p${i}`, email: `u${i}@x`, at, n: i });
      await c.updateMany({ n: { $lt: 5 } }, { $set: { low: true }, $inc: { n: 100 } });
      await c.deleteOne({ _id: 'p19' });
      await c.findOneAndUpdate({ _id: 'p18' }, { $unset: { email: '' }, $push: { tags: 'z' } });
      await first.close();

      const second = await ctx.open(db);
      const again = second.collection<Item>('items');
      expect(await again.countDocuments({})).toBe(19);
      expect(await again.findOne({ _id: 'p0' })).toEqual({ _id: 'p0', email: 'u0@x', at, n: 100, low: true });
      expect(await again.findOne({ _id: 'p18' })).toEqual({ _id: 'p18', at, n: 18, tags: ['z'] });
      expect(await again.findOne({ _id: 'p19' })).toBeNull();
      expect(((await again.findOne({ _id: 'p7' }))!.at as Date).getTime()).toBe(at.getTime());
      // The unique index survived without being created again.
      await expect(again.insertOne({ _id: 'new', email: 'u3@x' })).rejects.toBeInstanceOf(DuplicateKeyError);
    });
  });
}
