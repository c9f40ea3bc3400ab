// Contract: findOneAndUpdate is atomic when many callers race on one document.
import type { ContractContext, Item } from './contract.js';

export function runConcurrencyContract(ctx: ContractContext): void {
  describe('atomic read-modify-write', () => {
    it('50 concurrent $inc all count', async () => {
      const c = (await ctx.fresh()).collection<Item>('ctr');
      await c.insertOne({ _id: 'n', v: 0 });
      const results = await Promise.all(Array.from({ length: 50 }, () => c.findOneAndUpdate({ _id: 'n' }, { $inc: { v: 1 } })));
      expect((await c.findOne({ _id: 'n' }))!.v).toBe(50);
      // Every caller saw a different value: no two read the same state.
      expect(new Set(results.map((r) => r!.v)).size).toBe(50);
    });

    it('20 concurrent upserts on one key create one document', async () => {
      const c = (await ctx.fresh()).collection<Item>('ctr');
      await Promise.all(
        Array.from({ length: 20 }, () =>
          c.findOneAndUpdate({ _id: 'k' }, { $inc: { hits: 1 }, $setOnInsert: { first: true } }, { upsert: true }),
        ),
      );
      expect(await c.find({})).toEqual([{ _id: 'k', hits: 20, first: true }]);
    });

    it('20 concurrent claims of one pending job give exactly one winner', async () => {
      const c = (await ctx.fresh()).collection<Item>('jobs');
      await c.insertOne({ _id: 'job', status: 'pending' });
      const claims = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          c.findOneAndUpdate({ _id: 'job', status: 'pending' }, { $set: { status: 'running', worker: i } }),
        ),
      );
      const winners = claims.filter((r) => r !== null);
      expect(winners).toHaveLength(1);
      expect(await c.findOne({ _id: 'job' })).toEqual({ _id: 'job', status: 'running', worker: winners[0]!.worker });
    });

    it('concurrent claims over a queue hand each job to one worker', async () => {
      const c = (await ctx.fresh()).collection<Item>('queue');
      for (let i = 0; i < 10; i++) await c.insertOne({ _id: `q${i}`, status: 'pending', order: i });
      const claims = await Promise.all(
        Array.from({ length: 15 }, (_, w) =>
          c.findOneAndUpdate({ status: 'pending' }, { $set: { status: 'running', worker: w } }, { sort: { order: 1 } }),
        ),
      );
      const won = claims.filter((r) => r !== null).map((r) => r!._id);
      expect(won).toHaveLength(10);
      expect(new Set(won).size).toBe(10);
      expect(await c.countDocuments({ status: 'pending' })).toBe(0);
    });
  });
}
