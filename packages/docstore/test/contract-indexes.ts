// Contract: unique indexes (insert, update, upsert) and TTL indexes.
import { DuplicateKeyError } from '../src/index.js';
import type { ContractContext, Item } from './contract.js';

export function runIndexContract(ctx: ContractContext): void {
  describe('unique indexes', () => {
    const coll = async () => (await ctx.fresh()).collection<Item>('ix');

    it('rejects inserts that repeat a unique key and keeps the rest', async () => {
      const c = await coll();
      await c.createIndex({ keys: { email: 1 }, unique: true });
      await c.createIndex({ keys: { email: 1 }, unique: true }); // idempotent
      await c.insertOne({ _id: 'a', email: 'x@y' });
      await expect(c.insertOne({ _id: 'b', email: 'x@y' })).rejects.toBeInstanceOf(DuplicateKeyError);
      await c.insertOne({ _id: 'c', email: 'z@y' });
      expect((await c.find({}, { sort: { _id: 1 } })).map((d) => d._id)).toEqual(['a', 'c']);
    });

    it('enforces compound keys on the combination only', async () => {
      const c = await coll();
      await c.createIndex({ keys: { accountId: 1, path: 1 }, unique: true, name: 'account_path' });
      await c.insertOne({ _id: '1', accountId: 'a', path: '/x' });
      await c.insertOne({ _id: '2', accountId: 'b', path: '/x' });
      await c.insertOne({ _id: '3', accountId: 'a', path: '/y' });
      await expect(c.insertOne({ _id: '4', accountId: 'a', path: '/x' })).rejects.toBeInstanceOf(DuplicateKeyError);
      expect(await c.countDocuments({})).toBe(3);
    });

    it('enforces keys on nested fields', async () => {
      const c = await coll();
      await c.createIndex({ keys: { 'owner.id': 1 }, unique: true });
      await c.insertOne({ _id: '1', owner: { id: 'o1', name: 'x' } });
      await expect(c.insertOne({ _id: '2', owner: { id: 'o1', name: 'y' } })).rejects.toBeInstanceOf(DuplicateKeyError);
      await c.insertOne({ _id: '3', owner: { id: 'o2' } });
      expect(await c.findOne({ 'owner.id': 'o1' })).toEqual({ _id: '1', owner: { id: 'o1', name: 'x' } });
    });

    it('rejects an update that would duplicate a key and leaves the document unchanged', async () => {
      const c = await coll();
      await c.createIndex({ keys: { email: 1 }, unique: true });
      await c.insertOne({ _id: 'a', email: 'a@x', n: 1 });
      await c.insertOne({ _id: 'b', email: 'b@x', n: 1 });
      await expect(c.findOneAndUpdate({ _id: 'b' }, { $set: { email: 'a@x' }, $inc: { n: 1 } })).rejects.toBeInstanceOf(DuplicateKeyError);
      await expect(c.updateMany({ _id: 'b' }, { $set: { email: 'a@x' } })).rejects.toBeInstanceOf(DuplicateKeyError);
      expect(await c.findOne({ _id: 'b' })).toEqual({ _id: 'b', email: 'b@x', n: 1 });
      // A document may keep (re-set) its own key.
      expect(await c.findOneAndUpdate({ _id: 'a' }, { $set: { email: 'a@x', n: 2 } })).toEqual({ _id: 'a', email: 'a@x', n: 2 });
      // After moving away, the old key is free again.
      await c.findOneAndUpdate({ _id: 'a' }, { $set: { email: 'moved@x' } });
      await c.insertOne({ _id: 'c', email: 'a@x' });
      expect(await c.countDocuments({})).toBe(3);
    });

    it('rejects an upsert whose new document duplicates a key', async () => {
      const c = await coll();
      await c.createIndex({ keys: { email: 1 }, unique: true });
      await c.insertOne({ _id: 'a', email: 'a@x' });
      await expect(c.findOneAndUpdate({ _id: 'new' }, { $setOnInsert: { email: 'a@x' } }, { upsert: true })).rejects.toBeInstanceOf(
        DuplicateKeyError,
      );
      expect(await c.findOne({ _id: 'new' })).toBeNull();
      // An upsert whose filter misses an existing _id (other fields differ) collides on _id.
      await expect(c.findOneAndUpdate({ _id: 'a', email: 'other' }, { $set: { v: 1 } }, { upsert: true })).rejects.toBeInstanceOf(
        DuplicateKeyError,
      );
      expect(await c.find({})).toEqual([{ _id: 'a', email: 'a@x' }]);
    });

    it('refuses to build a unique index over existing duplicates', async () => {
      const c = await coll();
      await c.insertOne({ _id: 'a', k: 1 });
      await c.insertOne({ _id: 'b', k: 1 });
      await expect(c.createIndex({ keys: { k: 1 }, unique: true })).rejects.toBeInstanceOf(DuplicateKeyError);
      await c.insertOne({ _id: 'c', k: 1 });
      expect(await c.countDocuments({ k: 1 })).toBe(3);
    });

    it('treats a non-unique index as a plain index', async () => {
      const c = await coll();
      await c.createIndex({ keys: { status: 1, createdAt: -1 } });
      await c.insertOne({ _id: 'a', status: 's' });
      await c.insertOne({ _id: 'b', status: 's' });
      expect(await c.countDocuments({ status: 's' })).toBe(2);
    });
  });

  describe('TTL indexes', () => {
    it(
      'removes documents once their date field has passed, and only those',
      async () => {
        const c = (await ctx.fresh()).collection<Item>('ttl');
        await c.createIndex({ keys: { expiresAt: 1 }, expireAfterSeconds: 0 });
        const now = Date.now();
        await c.insertOne({ _id: 'past', expiresAt: new Date(now - 1000) });
        await c.insertOne({ _id: 'soon', expiresAt: new Date(now + 1500) });
        await c.insertOne({ _id: 'later', expiresAt: new Date(now + 3_600_000) });
        await c.insertOne({ _id: 'no-date', expiresAt: 'not a date' });
        await c.insertOne({ _id: 'no-field' });
        const deadline = Date.now() + ctx.ttlWaitMs;
        while (Date.now() < deadline && (await c.countDocuments({ _id: { $in: ['past', 'soon'] } })) > 0) {
          await new Promise((r) => setTimeout(r, 200));
        }
        expect((await c.find({}, { sort: { _id: 1 } })).map((d) => d._id)).toEqual(['later', 'no-date', 'no-field']);
      },
      ctx.ttlWaitMs + 30_000,
    );

    it(
      'counts expireAfterSeconds from the stored date',
      async () => {
        const c = (await ctx.fresh()).collection<Item>('ttl2');
        await c.createIndex({ keys: { createdAt: 1 }, expireAfterSeconds: 1 });
        await c.insertOne({ _id: 'old', createdAt: new Date(Date.now() - 5000) });
        await c.insertOne({ _id: 'fresh', createdAt: new Date(Date.now() + 3_600_000) });
        const deadline = Date.now() + ctx.ttlWaitMs;
        while (Date.now() < deadline && (await c.findOne({ _id: 'old' }))) await new Promise((r) => setTimeout(r, 200));
        expect((await c.find({})).map((d) => d._id)).toEqual(['fresh']);
      },
      ctx.ttlWaitMs + 30_000,
    );
  });
}
