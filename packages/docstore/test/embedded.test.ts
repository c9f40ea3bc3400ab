// The embedded engine: the shared contract, plus what only it has (files, compaction, memory-only).
import { readdir, readFile, appendFile } from 'node:fs/promises';
import { join } from 'node:path';
import { tempDir } from '@media/testkit';
import { DuplicateKeyError, openDocStore, openEmbeddedDocStore, type DocStore } from '../src/index.js';
import { runDocStoreContract, type Item } from './contract.js';

let dir: { path: string; remove: () => Promise<void> };
beforeAll(async () => {
  dir = await tempDir('docstore-embedded-');
});
afterAll(async () => {
  await dir.remove();
});

runDocStoreContract('embedded', (database) => openEmbeddedDocStore({ dataDir: dir.path, database, ttlIntervalMs: 100 }), {
  ttlWaitMs: 10_000,
});

describe('embedded engine specifics', () => {
  const open: DocStore[] = [];
  const openStore = async (database: string, extra: { compactAfterOps?: number } = {}) => {
    const s = await openEmbeddedDocStore({ dataDir: dir.path, database, ...extra });
    open.push(s);
    return s;
  };
  afterEach(async () => {
    await Promise.all(open.splice(0).map((s) => s.close()));
  });

  it('openDocStore without mongoUrl uses the embedded engine under dataDir/database', async () => {
    const store = await openDocStore({ dataDir: dir.path, database: 'via_open' });
    open.push(store);
    await store.collection<Item>('things').insertOne({ _id: 'x' });
    await store.close();
    expect(await readdir(join(dir.path, 'via_open'))).toContain('things.log.jsonl');
  });

  it('does not write persistent: false collections and forgets them on reopen', async () => {
    const s1 = await openStore('memonly');
    const mem = s1.collection<Item>('rate', { persistent: false });
    for (let i = 0; i < 100; i++) await mem.findOneAndUpdate({ _id: 'k' }, { $inc: { n: 1 } }, { upsert: true });
    expect((await mem.findOne({ _id: 'k' }))!.n).toBe(100);
    await s1.close();
    expect(await readdir(join(dir.path, 'memonly'))).toEqual([]);
    const s2 = await openStore('memonly');
    expect(await s2.collection<Item>('rate', { persistent: false }).countDocuments({})).toBe(0);
  });

  it('compacts the log into a snapshot and still restores everything', async () => {
    const s1 = await openStore('compact', { compactAfterOps: 50 });
    const c = s1.collection<Item>('c');
    await c.createIndex({ keys: { k: 1 }, unique: true });
    for (let i = 0; i < 300; i++) {
      await c.insertOne({ _id: `d${i}`, k: i, at: new Date(1_000_000 + i) });
      if (i % 3 === 0) await c.findOneAndUpdate({ _id: `d${i}` }, { $inc: { k: 1000 } });
      if (i % 10 === 0) await new Promise((r) => setTimeout(r, 15)); // let batches flush and compact
    }
    await c.deleteMany({ k: { $lt: 100 } });
    await s1.close();
    const files = await readdir(join(dir.path, 'compact'));
    expect(files.sort()).toEqual(['c.log.jsonl', 'c.snapshot.jsonl']);
    const logLines = (await readFile(join(dir.path, 'compact', 'c.log.jsonl'), 'utf8')).split('\n').filter(Boolean);
    expect(logLines.length).toBeLessThan(400); // compaction happened: 300 inserts + 100 updates + deletes otherwise

    const s2 = await openStore('compact');
    const again = s2.collection<Item>('c');
    const expected = Array.from({ length: 300 }, (_, i) => (i % 3 === 0 ? i + 1000 : i)).filter((k) => k >= 100);
    expect(await again.countDocuments({})).toBe(expected.length);
    expect((await again.find({}, { sort: { k: 1 } })).map((d) => d.k)).toEqual([...expected].sort((a, b) => a - b));
    expect((await again.findOne({ _id: 'd299' }))!.at).toEqual(new Date(1_000_299));
    await expect(again.insertOne({ _id: 'dup', k: 1150 })).rejects.toBeInstanceOf(DuplicateKeyError);
  });

  it('ignores a torn last log line left by a crash', async () => {
    const s1 = await openStore('torn');
    await s1.collection<Item>('c').insertOne({ _id: 'a', v: 1 });
    await s1.collection<Item>('c').insertOne({ _id: 'b', v: 2 });
    await s1.close();
    await appendFile(join(dir.path, 'torn', 'c.log.jsonl'), '{"s":3,"put":{"_id":"c","v');
    const s2 = await openStore('torn');
    expect((await s2.collection<Item>('c').find({})).map((d) => d._id)).toEqual(['a', 'b']);
  });

  it('rejects use after close', async () => {
    const s = await openStore('closed');
    const c = s.collection<Item>('c');
    await s.close();
    await expect(c.insertOne({ _id: 'a' })).rejects.toThrow(/closed/);
    await expect(s.ping()).rejects.toThrow(/closed/);
  });

  it('rejects unsupported update operators and names that are not safe file names', async () => {
    const s = await openStore('invalid');
    const c = s.collection<Item>('c');
    await c.insertOne({ _id: 'a', n: 'text' });
    await expect(c.findOneAndUpdate({ _id: 'a' }, { $rename: { n: 'm' } } as never)).rejects.toThrow(/unsupported update operator/);
    await expect(c.findOneAndUpdate({ _id: 'a' }, { $inc: { n: 1 } })).rejects.toThrow(/non-numeric/);
    await expect(c.findOneAndUpdate({ _id: 'a' }, { $set: { _id: 'b' } })).rejects.toThrow(/immutable/);
    expect(await c.findOne({ _id: 'a' })).toEqual({ _id: 'a', n: 'text' });
    await expect(c.find({ $where: 'this.n.length > 0' })).rejects.toThrow(/scriptEnabled/);
    expect(() => s.collection('../escape')).toThrow(/invalid collection name/);
    await expect(openEmbeddedDocStore({ dataDir: dir.path, database: '../up' })).rejects.toThrow(/invalid database name/);
  });
});
