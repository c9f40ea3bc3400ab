// A write to an embedded collection that fails (a full disk; here a directory standing where the
// log goes) fails only its own operations: memory goes back to what was acknowledged, and once
// the file can be written again the collection takes writes without a restart.
import { mkdir, readFile, rename, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { tempDir } from '@media/testkit';
import { openEmbeddedDocStore } from '../src/index.js';

let dir: { path: string; remove: () => Promise<void> };
beforeAll(async () => {
  dir = await tempDir('docstore-recovery-');
});
afterAll(async () => {
  await dir.remove();
});

const until = async (ok: () => Promise<boolean>) => {
  for (let i = 0; i < 100 && !(await ok()); i++) await new Promise((r) => setTimeout(r, 50));
};

test('a failed write is undone in memory; writes resume once the disk takes them again', async () => {
  const open = () => openEmbeddedDocStore({ dataDir: dir.path, database: 'recovering' });
  const store = await open();
  const things = store.collection<{ _id: string; n: number }>('things');
  await things.createIndex({ keys: { n: 1 }, unique: true });
  await things.insertOne({ _id: 'a', n: 1 });
  await store.close();

  const again = await open();
  const c = again.collection<{ _id: string; n: number }>('things');
  const log = join(dir.path, 'recovering', 'things.log.jsonl');
  // The log cannot be opened (a link to a directory stands in its place): every write fails as on
  // a full disk, and so does reading it back.
  await rename(log, `${log}.aside`);
  await mkdir(`${log}.dir`);
  await symlink(`${log}.dir`, log);
  await expect(c.insertOne({ _id: 'b', n: 2 })).rejects.toThrow(/EISDIR/);
  await expect(c.findOneAndUpdate({ _id: 'a' }, { $set: { n: 5 } })).rejects.toThrow();
  // Recovery cannot read the log either: reads may see the refused writes until it can. The log
  // comes back in one step (rename replaces the link), as space comes back on a full disk.
  await rename(`${log}.aside`, log);
  // Reads, writes and the unique index are back to the acknowledged state, without a restart.
  await until(async () => (await c.findOne({ _id: 'b' })) === null);
  expect(await c.find({})).toEqual([{ _id: 'a', n: 1 }]);
  await c.insertOne({ _id: 'c', n: 2 }); // n: 2 was the refused insert's, so it is free
  await c.findOneAndUpdate({ _id: 'a' }, { $set: { n: 3 } });
  await expect(again.ping()).resolves.toBeUndefined();
  await again.close();

  const reopened = await open();
  expect(await reopened.collection('things').find({}, { sort: { _id: 1 } })).toEqual([
    { _id: 'a', n: 3 },
    { _id: 'c', n: 2 },
  ]);
  expect((await readFile(log, 'utf8')).split('\n').filter(Boolean)).toHaveLength(4); // index, a, c, a again
  await reopened.close();
});
