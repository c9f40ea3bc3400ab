// The embedded engine's TTL sweep: it skips its scan until the earliest expiry, sees a write that
// brings that forward, and removes a large expired batch over several sweeps (a minute's rate
// counters expire together; removing them all at once stalled every request).
import { tempDir } from '@media/testkit';
import { openEmbeddedDocStore, type DocStore } from '../src/index.js';
import type { EmbeddedCollection } from '../src/embedded/collection.js';

type Row = { _id: string; expireAt: Date | string };
let dir: { path: string; remove: () => Promise<void> };
let store: DocStore;
beforeAll(async () => {
  dir = await tempDir('docstore-ttl-');
  // The timer never fires here: the test sweeps by hand.
  store = await openEmbeddedDocStore({ dataDir: dir.path, database: 'ttl', ttlIntervalMs: 3_600_000 });
});
afterAll(async () => {
  await store.close();
  await dir.remove();
});

test('a large expired batch goes over several sweeps; a write with an earlier expiry is not missed', async () => {
  const c = store.collection<Row>('counters', { persistent: false });
  await c.createIndex({ keys: { expireAt: 1 }, expireAfterSeconds: 0 });
  const sweep = () => (c as unknown as EmbeddedCollection<Row>).expire(Date.now());
  const past = new Date(Date.now() - 1000);
  for (let i = 0; i < 2500; i++) await c.insertOne({ _id: `old${i}`, expireAt: past });
  await c.insertOne({ _id: 'later', expireAt: new Date(Date.now() + 3_600_000) });
  await c.insertOne({ _id: 'never', expireAt: 'not a date' });
  expect([sweep(), sweep(), sweep(), sweep()]).toEqual([1000, 1000, 500, 0]);
  expect(await c.countDocuments({})).toBe(2);
  // The next expiry is an hour away, so sweeps skip; a write bringing one forward is still seen.
  await c.insertOne({ _id: 'soon', expireAt: past });
  await c.findOneAndUpdate({ _id: 'later' }, { $set: { expireAt: past } });
  expect(sweep()).toBe(2);
  expect((await c.find({})).map((d) => d._id)).toEqual(['never']);
});
