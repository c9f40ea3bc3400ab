// Contract: declared (non-unique) indexes change no answer. The same data and writes go to a
// collection with indexes and one without; every query must return the same documents.
import type { Collection, DocStore } from '../src/index.js';
import type { ContractContext, Item } from './contract.js';
import { changeIndexedFields, deleteSome, expectSameAnswers, insertionOrder, LOOKUP_INDEXES, QUERIES, row } from './lookup-scenario.js';

let counter = 0;

async function mirrors(store: DocStore, create: boolean): Promise<{ indexed: Collection<Item>; plain: Collection<Item> }> {
  const indexed = store.collection<Item>('indexed');
  const plain = store.collection<Item>('plain');
  if (create) for (const spec of LOOKUP_INDEXES) await indexed.createIndex(spec);
  return { indexed, plain };
}

async function seed(...colls: Collection<Item>[]): Promise<void> {
  for (const i of insertionOrder()) for (const c of colls) await c.insertOne(row(i));
}

export function runLookupContract(ctx: ContractContext): void {
  describe('declared indexes and query answers', () => {
    it('answers equality, $in, ranges on other fields, sort/skip/limit as without indexes', async () => {
      const { indexed, plain } = await mirrors(await ctx.fresh(), true);
      await seed(indexed, plain);
      await expectSameAnswers(indexed, plain, QUERIES, false);
    });

    it('stays the same after updates and upserts that change indexed fields, and after deletes', async () => {
      const { indexed, plain } = await mirrors(await ctx.fresh(), true);
      await seed(indexed, plain);
      await expectSameAnswers(indexed, plain, QUERIES, false);
      expect(await changeIndexedFields(indexed)).toEqual(await changeIndexedFields(plain));
      await expectSameAnswers(indexed, plain, QUERIES, false);
      expect(await deleteSome(indexed)).toEqual(await deleteSome(plain));
      await expectSameAnswers(indexed, plain, QUERIES, false);
    });

    it('indexes created over existing documents answer the same', async () => {
      const { indexed, plain } = await mirrors(await ctx.fresh(), false);
      await seed(indexed, plain);
      await expectSameAnswers(indexed, plain, QUERIES, false);
      for (const spec of LOOKUP_INDEXES) await indexed.createIndex(spec);
      await expectSameAnswers(indexed, plain, QUERIES, false);
    });

    it('stays the same after close and reopen', async () => {
      const db = `lookups_${process.pid}_${++counter}`;
      const firstStore = await ctx.open(db);
      const first = await mirrors(firstStore, true);
      await seed(first.indexed, first.plain);
      await expectSameAnswers(first.indexed, first.plain, QUERIES, false);
      expect(await changeIndexedFields(first.indexed)).toEqual(await changeIndexedFields(first.plain));
      await expectSameAnswers(first.indexed, first.plain, QUERIES, false);
      await firstStore.close();
      // Reopened, the indexes come back from the journal (embedded) or the server, not from createIndex.
      const second = await mirrors(await ctx.open(db), false);
      await expectSameAnswers(second.indexed, second.plain, QUERIES, false);
      expect(await deleteSome(second.indexed)).toEqual(await deleteSome(second.plain));
      await expectSameAnswers(second.indexed, second.plain, QUERIES, false);
    });

    it(
      'drops expired documents from lookups',
      async () => {
        const { indexed, plain } = await mirrors(await ctx.fresh(), true);
        // Nothing may expire before the first comparison is over: a TTL pass (MongoDB's monitor,
        // the wire server's timer) between the two collections' answers makes them differ. So no
        // document starts out expired (the TTL contract covers that), and "soon" leaves room for
        // seeding and comparing over the wire on a loaded CI machine (1.5 s once did not).
        const now = Date.now();
        const soon = now + 5000;
        const expiresAt = (i: number) => new Date(i % 3 === 2 ? now + 3_600_000 : soon);
        for (const c of [indexed, plain]) await c.createIndex({ keys: { expiresAt: 1 }, expireAfterSeconds: 0 });
        for (const i of insertionOrder()) for (const c of [indexed, plain]) await c.insertOne({ ...row(i), expiresAt: expiresAt(i) });
        await expectSameAnswers(indexed, plain, QUERIES, false); // builds the lookups before expiry
        expect(Date.now()).toBeLessThan(soon); // else the comparison above may have met the expiry
        const expiring = insertionOrder()
          .filter((i) => i % 3 !== 2)
          .map((i) => row(i)._id);
        const deadline = Date.now() + ctx.ttlWaitMs;
        const left = async () =>
          (await indexed.countDocuments({ _id: { $in: expiring } })) + (await plain.countDocuments({ _id: { $in: expiring } }));
        while (Date.now() < deadline && (await left()) > 0) await new Promise((r) => setTimeout(r, 200));
        expect(await left()).toBe(0);
        await expectSameAnswers(indexed, plain, QUERIES, false);
        expect((await indexed.find({ accountId: { $in: ['a0', 'a1', 'a2', 'a3'] } })).every((d) => (d.seq as number) % 3 === 2)).toBe(true);
        expect(await indexed.countDocuments({ accountId: 'a1', status: { $in: ['pending', 'processing', 'done', 'failed'] } })).toBe(
          await plain.countDocuments({ accountId: 'a1', status: { $in: ['pending', 'processing', 'done', 'failed'] } }),
        );
      },
      ctx.ttlWaitMs + 30_000,
    );
  });
}
