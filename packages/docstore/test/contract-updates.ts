// Contract: update operators, findOneAndUpdate options and upsert semantics.
import type { ContractContext, Item } from './contract.js';

export function runUpdateContract(ctx: ContractContext): void {
  describe('updates', () => {
    const coll = async () => (await ctx.fresh()).collection<Item>('u');

    it('$set creates and replaces fields, including nested ones', async () => {
      const c = await coll();
      await c.insertOne({ _id: 'a', n: 1, o: { x: 1 } });
      const after = await c.findOneAndUpdate({ _id: 'a' }, { $set: { n: 2, 'o.y': 'new', 'p.q.r': true, list: [1] } });
      expect(after).toEqual({ _id: 'a', n: 2, o: { x: 1, y: 'new' }, p: { q: { r: true } }, list: [1] });
    });

    it('$unset removes fields, nested ones too, and ignores missing ones', async () => {
      const c = await coll();
      await c.insertOne({ _id: 'a', n: 1, o: { x: 1, y: 2 }, keep: true });
      const after = await c.findOneAndUpdate({ _id: 'a' }, { $unset: { n: '', 'o.x': '', nothing: '' } });
      expect(after).toEqual({ _id: 'a', o: { y: 2 }, keep: true });
    });

    it('$inc adds to numbers and starts missing fields at the increment', async () => {
      const c = await coll();
      await c.insertOne({ _id: 'a', n: 1, o: { m: 10 } });
      expect(await c.findOneAndUpdate({ _id: 'a' }, { $inc: { n: 2, 'o.m': -3, fresh: 5, frac: 0.5 } })).toEqual({
        _id: 'a',
        n: 3,
        o: { m: 7 },
        fresh: 5,
        frac: 0.5,
      });
    });

    it('$push appends one value or several with $each, creating the array if needed', async () => {
      const c = await coll();
      await c.insertOne({ _id: 'a', tags: ['x'] });
      await c.findOneAndUpdate({ _id: 'a' }, { $push: { tags: 'y' } });
      await c.findOneAndUpdate({ _id: 'a' }, { $push: { tags: { $each: ['z', 'x'] }, events: { at: 1 } } });
      expect(await c.findOne({ _id: 'a' })).toEqual({ _id: 'a', tags: ['x', 'y', 'z', 'x'], events: [{ at: 1 }] });
    });

    it('$pull removes equal values or elements matching a condition', async () => {
      const c = await coll();
      await c.insertOne({
        _id: 'a',
        tags: ['x', 'y', 'x'],
        n: [1, 5, 2, 8],
        subs: [
          { id: 1, on: true },
          { id: 2, on: false },
        ],
      });
      const after = await c.findOneAndUpdate({ _id: 'a' }, { $pull: { tags: 'x', n: { $gte: 5 }, subs: { on: false }, absent: 1 } });
      expect(after).toEqual({ _id: 'a', tags: ['y'], n: [1, 2], subs: [{ id: 1, on: true }] });
    });

    it('$setOnInsert does nothing when the document exists', async () => {
      const c = await coll();
      await c.insertOne({ _id: 'a', n: 1 });
      expect(await c.findOneAndUpdate({ _id: 'a' }, { $setOnInsert: { created: true }, $set: { n: 2 } }, { upsert: true })).toEqual({
        _id: 'a',
        n: 2,
      });
    });

    it('returns the document after the update by default, or before it on request', async () => {
      const c = await coll();
      await c.insertOne({ _id: 'a', n: 1 });
      expect(await c.findOneAndUpdate({ _id: 'a' }, { $inc: { n: 1 } })).toEqual({ _id: 'a', n: 2 });
      expect(await c.findOneAndUpdate({ _id: 'a' }, { $inc: { n: 1 } }, { returnDocument: 'before' })).toEqual({ _id: 'a', n: 2 });
      expect(await c.findOne({ _id: 'a' })).toEqual({ _id: 'a', n: 3 });
      expect(await c.findOneAndUpdate({ _id: 'zzz' }, { $inc: { n: 1 } })).toBeNull();
      expect(await c.countDocuments({})).toBe(1);
    });

    it('findOneAndUpdate with sort changes the first document in that order', async () => {
      const c = await coll();
      for (const [i, p] of [3, 1, 2].entries()) await c.insertOne({ _id: `j${i}`, status: 'pending', priority: p });
      const first = await c.findOneAndUpdate({ status: 'pending' }, { $set: { status: 'running' } }, { sort: { priority: -1 } });
      expect(first).toEqual({ _id: 'j0', status: 'running', priority: 3 });
      const next = await c.findOneAndUpdate({ status: 'pending' }, { $set: { status: 'running' } }, { sort: { priority: 1 } });
      expect(next).toEqual({ _id: 'j1', status: 'running', priority: 1 });
    });

    it('updateMany changes every match and returns the matched count', async () => {
      const c = await coll();
      for (let i = 0; i < 5; i++) await c.insertOne({ _id: `m${i}`, group: i < 3 ? 'a' : 'b', n: i });
      expect(await c.updateMany({ group: 'a' }, { $set: { seen: true }, $inc: { n: 10 } })).toBe(3);
      expect(await c.updateMany({ group: 'none' }, { $set: { seen: true } })).toBe(0);
      expect((await c.find({ seen: true }, { sort: { n: 1 } })).map((d) => d.n)).toEqual([10, 11, 12]);
      expect(await c.countDocuments({ seen: { $exists: false } })).toBe(2);
    });
  });

  describe('upserts', () => {
    const coll = async () => (await ctx.fresh()).collection<Item>('up');

    it('builds the new document from filter equalities, $setOnInsert and the update', async () => {
      const c = await coll();
      const doc = await c.findOneAndUpdate(
        { _id: 'acct-1:2024-05', accountId: 'acct-1', 'period.month': 5, status: { $in: ['open', 'new'] }, n: { $gt: 0 } },
        { $setOnInsert: { createdAt: new Date(0) }, $inc: { count: 1 }, $set: { last: 'x' } },
        { upsert: true },
      );
      // $in and $gt conditions contribute nothing; equality fields (dotted ones expanded) do.
      expect(doc).toEqual({
        _id: 'acct-1:2024-05',
        accountId: 'acct-1',
        period: { month: 5 },
        createdAt: new Date(0),
        count: 1,
        last: 'x',
      });
      expect(await c.findOne({ _id: 'acct-1:2024-05' })).toEqual(doc);
    });

    it('takes equalities from $and and $eq', async () => {
      const c = await coll();
      const doc = await c.findOneAndUpdate({ $and: [{ _id: 'k' }, { kind: { $eq: 'z' } }] }, { $set: { v: 1 } }, { upsert: true });
      expect(doc).toEqual({ _id: 'k', kind: 'z', v: 1 });
    });

    it('updates the existing document on a second upsert', async () => {
      const c = await coll();
      const upd = { $setOnInsert: { first: true }, $inc: { hits: 1 } };
      await c.findOneAndUpdate({ _id: 'k', bucket: 'b' }, upd, { upsert: true });
      expect(await c.findOneAndUpdate({ _id: 'k', bucket: 'b' }, upd, { upsert: true })).toEqual({
        _id: 'k',
        bucket: 'b',
        first: true,
        hits: 2,
      });
      expect(await c.countDocuments({})).toBe(1);
    });

    it("returns null for returnDocument 'before' when it inserted", async () => {
      const c = await coll();
      expect(await c.findOneAndUpdate({ _id: 'n' }, { $set: { v: 1 } }, { upsert: true, returnDocument: 'before' })).toBeNull();
      expect(await c.findOne({ _id: 'n' })).toEqual({ _id: 'n', v: 1 });
    });

    it('gives a string _id when neither filter nor update has one', async () => {
      const c = await coll();
      const doc = await c.findOneAndUpdate({ name: 'no-id' }, { $set: { v: 1 } }, { upsert: true });
      expect(typeof doc!._id).toBe('string');
      expect(doc!._id.length).toBeGreaterThan(0);
      expect(doc).toMatchObject({ name: 'no-id', v: 1 });
      expect(await c.findOne({ _id: doc!._id })).toEqual(doc);
    });

    it('takes _id from $setOnInsert', async () => {
      const c = await coll();
      const doc = await c.findOneAndUpdate({ email: 'a@b' }, { $setOnInsert: { _id: 'chosen' }, $set: { v: 1 } }, { upsert: true });
      expect(doc).toEqual({ _id: 'chosen', email: 'a@b', v: 1 });
    });
  });
}
