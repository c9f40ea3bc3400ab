// Contract: query operators, sort, skip and limit.
import type { ContractContext, Item } from './contract.js';

export function runQueryContract(ctx: ContractContext): void {
  describe('queries', () => {
    async function seeded() {
      const c = (await ctx.fresh()).collection<Item>('q');
      const rows: Item[] = [
        { _id: 'a', n: 1, s: 'apple', tags: ['red', 'fruit'], o: { k: 1, deep: { v: 'x' } }, items: [{ sku: 'p1', qty: 2 }] },
        { _id: 'b', n: 5, s: 'banana', tags: ['yellow', 'fruit'], o: { k: 2 }, items: [{ sku: 'p2', qty: 1 }] },
        { _id: 'c', n: 3, s: 'carrot', tags: ['orange'], o: { k: 1 }, gone: null },
        { _id: 'd', n: 10, s: 'date', tags: [] },
      ];
      for (const r of rows) await c.insertOne(r);
      return c;
    }
    const ids = (docs: Item[]) => docs.map((d) => d._id).sort();

    it('matches equality on fields, nested paths and array elements', async () => {
      const c = await seeded();
      expect(ids(await c.find({ n: 5 }))).toEqual(['b']);
      expect(ids(await c.find({ 'o.k': 1 }))).toEqual(['a', 'c']);
      expect(ids(await c.find({ 'o.deep.v': 'x' }))).toEqual(['a']);
      expect(ids(await c.find({ tags: 'fruit' }))).toEqual(['a', 'b']);
      expect(ids(await c.find({ 'items.sku': 'p2' }))).toEqual(['b']);
      expect(ids(await c.find({ n: 5, s: 'apple' }))).toEqual([]);
      expect(ids(await c.find({}))).toEqual(['a', 'b', 'c', 'd']);
    });

    it('supports comparison operators', async () => {
      const c = await seeded();
      expect(ids(await c.find({ n: { $gt: 3 } }))).toEqual(['b', 'd']);
      expect(ids(await c.find({ n: { $gte: 3 } }))).toEqual(['b', 'c', 'd']);
      expect(ids(await c.find({ n: { $lt: 3 } }))).toEqual(['a']);
      expect(ids(await c.find({ n: { $lte: 3 } }))).toEqual(['a', 'c']);
      expect(ids(await c.find({ n: { $gt: 1, $lt: 10 } }))).toEqual(['b', 'c']);
      expect(ids(await c.find({ n: { $ne: 5 } }))).toEqual(['a', 'c', 'd']);
      expect(ids(await c.find({ n: { $eq: 10 } }))).toEqual(['d']);
      expect(ids(await c.find({ s: { $in: ['apple', 'date', 'zzz'] } }))).toEqual(['a', 'd']);
      expect(ids(await c.find({ s: { $nin: ['apple', 'date'] } }))).toEqual(['b', 'c']);
      expect(ids(await c.find({ tags: { $in: ['orange', 'yellow'] } }))).toEqual(['b', 'c']);
    });

    it('supports logical, element, array and regex operators', async () => {
      const c = await seeded();
      expect(ids(await c.find({ $or: [{ n: 1 }, { s: 'date' }] }))).toEqual(['a', 'd']);
      expect(ids(await c.find({ $and: [{ tags: 'fruit' }, { n: { $gt: 1 } }] }))).toEqual(['b']);
      expect(ids(await c.find({ n: { $not: { $gt: 3 } } }))).toEqual(['a', 'c']);
      expect(ids(await c.find({ items: { $exists: true } }))).toEqual(['a', 'b']);
      expect(ids(await c.find({ items: { $exists: false } }))).toEqual(['c', 'd']);
      // null matches both null and missing, as in MongoDB.
      expect(ids(await c.find({ gone: null }))).toEqual(['a', 'b', 'c', 'd']);
      expect(ids(await c.find({ tags: { $size: 0 } }))).toEqual(['d']);
      expect(ids(await c.find({ tags: { $all: ['fruit', 'red'] } }))).toEqual(['a']);
      expect(ids(await c.find({ items: { $elemMatch: { sku: 'p1', qty: { $gte: 2 } } } }))).toEqual(['a']);
      expect(ids(await c.find({ s: { $regex: '^b' } }))).toEqual(['b']);
      expect(ids(await c.find({ s: /RROT$/i }))).toEqual(['c']);
    });

    it('sorts ascending and descending, on several keys', async () => {
      const c = await seeded();
      expect((await c.find({}, { sort: { n: 1 } })).map((d) => d._id)).toEqual(['a', 'c', 'b', 'd']);
      expect((await c.find({}, { sort: { n: -1 } })).map((d) => d._id)).toEqual(['d', 'b', 'c', 'a']);
      expect((await c.find({}, { sort: { 'o.k': -1, s: 1 } })).map((d) => d._id)).toEqual(['b', 'a', 'c', 'd']);
      expect((await c.findOne({ tags: 'fruit' }, { sort: { n: -1 } }))!._id).toBe('b');
      expect((await c.findOne({ tags: 'fruit' }, { sort: { n: 1 } }))!._id).toBe('a');
    });

    it('skips and limits after sorting', async () => {
      const c = await seeded();
      const page = (skip: number, limit: number) => c.find({}, { sort: { n: 1 }, skip, limit }).then((d) => d.map((x) => x._id));
      expect(await page(0, 2)).toEqual(['a', 'c']);
      expect(await page(2, 2)).toEqual(['b', 'd']);
      expect(await page(3, 10)).toEqual(['d']);
      expect(await page(4, 2)).toEqual([]);
      expect((await c.find({}, { sort: { n: -1 }, limit: 1 })).map((d) => d._id)).toEqual(['d']);
    });

    it('returns many documents across driver batches', async () => {
      const c = (await ctx.fresh()).collection<Item>('many');
      for (let i = 0; i < 250; i++) await c.insertOne({ _id: `m${String(i).padStart(3, '0')}`, i });
      const all = await c.find({}, { sort: { i: -1 } });
      expect(all).toHaveLength(250);
      expect(all[0]!._id).toBe('m249');
      expect(all[249]!._id).toBe('m000');
      expect(await c.countDocuments({ i: { $gte: 200 } })).toBe(50);
    });
  });
}
