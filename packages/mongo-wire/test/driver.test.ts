// The wire server through the official driver: what the driver sends for common calls, and the
// MongoDB error documents for what the server rejects or does not implement.
import { MongoClient, MongoServerError, ObjectId, type CommandStartedEvent } from 'mongodb';
import { startMongoWireServer, type RunningWireServer } from '../src/index.js';

let server: RunningWireServer;
let client: MongoClient;
const started: CommandStartedEvent[] = [];

beforeAll(async () => {
  server = await startMongoWireServer({ ttlIntervalMs: 50 });
  client = new MongoClient(server.url, { monitorCommands: true, serverSelectionTimeoutMS: 2000 });
  client.on('commandStarted', (e) => started.push(e));
  await client.connect();
});
afterAll(async () => {
  await client.close();
  await server.stop();
});

let n = 0;
const db = () => client.db(`wire_${++n}`);

async function serverError(p: Promise<unknown>): Promise<MongoServerError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(MongoServerError);
  return err as MongoServerError;
}

it('listens on loopback with a directConnection URL', () => {
  expect(server.url).toBe(`mongodb://127.0.0.1:${server.port}/?directConnection=true`);
  expect(server.port).toBeGreaterThan(0);
});

it('reports unknown commands as MongoServerError 59 (CommandNotFound)', async () => {
  const err = await serverError(db().command({ replSetGetStatus: 1 }));
  expect(err.code).toBe(59);
  expect(err.codeName).toBe('CommandNotFound');
  expect(err.message).toBe("no such command: 'replSetGetStatus'");
});

it('reports unimplemented features as MongoServerError 238 (NotImplemented)', async () => {
  const c = db().collection('c');
  await c.insertOne({ _id: new ObjectId(), a: 1 });
  expect((await serverError(c.aggregate([{ $lookup: { from: 'x', as: 'y', localField: 'a', foreignField: 'b' } }]).toArray())).code).toBe(
    238,
  );
  expect((await serverError(c.updateOne({}, [{ $set: { b: 1 } }]))).code).toBe(238);
  expect((await serverError(c.find({}, { collation: { locale: 'fr' } }).toArray())).code).toBe(238);
  expect((await serverError(c.createIndex({ a: 1 }, { sparse: true }))).code).toBe(238);
  expect((await serverError(c.createIndex({ a: 'text' }))).code).toBe(238);
});

it('pages a cursor with getMore and closes an abandoned one with killCursors', async () => {
  const c = db().collection<{ _id: number }>('paged');
  await c.insertMany(Array.from({ length: 7 }, (_, i) => ({ _id: i })));
  started.length = 0;
  expect((await c.find({}, { batchSize: 2 }).sort({ _id: -1 }).toArray()).map((d) => d._id)).toEqual([6, 5, 4, 3, 2, 1, 0]);
  expect(started.filter((e) => e.commandName === 'getMore')).toHaveLength(3);

  started.length = 0;
  const cursor = c.find({}, { batchSize: 2 });
  await cursor.next();
  await cursor.close();
  expect(started.map((e) => e.commandName)).toEqual(['find', 'killCursors']);
});

it('sorts by several keys, each in its direction, ties kept in insertion order, types in BSON order', async () => {
  const c = db().collection('sorted');
  const t = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s));
  await c.insertMany([
    { _id: 'e' as never, at: t(2), k: 'b' },
    { _id: 'a' as never, at: t(1), k: 'a' },
    { _id: 'd' as never, at: t(2), k: 'a' },
    { _id: 'c' as never, at: t(1), k: 'b' },
    { _id: 'b' as never, at: t(1), k: 'b' },
  ]);
  const ids = async (sort: Record<string, 1 | -1>) => (await c.find({}).sort(sort).toArray()).map((d) => d._id);
  expect(await ids({ at: 1, _id: 1 })).toEqual(['a', 'b', 'c', 'd', 'e']);
  expect(await ids({ at: -1, k: 1 })).toEqual(['d', 'e', 'a', 'c', 'b']);
  const mixed = db().collection('mixed');
  await mixed.insertMany([{ v: 'x' }, { v: t(0) }, { v: 2 }, {}, { v: null }, { v: 1.5 }].map((d, i) => ({ _id: i as never, ...d })));
  expect((await mixed.find({}).sort({ v: 1 }).toArray()).map((d) => d._id)).toEqual([3, 4, 5, 2, 0, 1]);
});

it('applies filter, sort, skip, limit and projection in find', async () => {
  const c = db().collection('f');
  await c.insertMany([
    { _id: 'a' as never, n: 3, s: 'x', o: { p: 1, q: 2 } },
    { _id: 'b' as never, n: 1, s: 'y', o: { p: 2, q: 3 } },
    { _id: 'c' as never, n: 2, s: 'x', o: { p: 3, q: 4 } },
  ]);
  expect(
    await c
      .find({ s: 'x' }, { projection: { n: 1, _id: 0 } })
      .sort({ n: 1 })
      .toArray(),
  ).toEqual([{ n: 2 }, { n: 3 }]);
  expect(
    await c
      .find({}, { projection: { 'o.q': 0, s: 0 } })
      .sort({ n: -1 })
      .skip(1)
      .limit(1)
      .toArray(),
  ).toEqual([{ _id: 'c', n: 2, o: { p: 3 } }]);
  expect(await c.countDocuments({ n: { $gte: 2 } })).toBe(2);
  expect(await c.countDocuments({}, { skip: 1, limit: 1 })).toBe(1);
  expect((await c.distinct('s')).sort()).toEqual(['x', 'y']);
});

it('generates ObjectId _ids for upserts without one and reports upserted ids', async () => {
  const c = db().collection('u');
  const r = await c.updateOne({ k: 'v' }, { $set: { a: 1 } }, { upsert: true });
  expect(r.upsertedCount).toBe(1);
  expect(r.upsertedId).toBeInstanceOf(ObjectId);
  const again = await c.updateOne({ k: 'v' }, { $set: { a: 1 } }, { upsert: true });
  expect(again).toMatchObject({ matchedCount: 1, modifiedCount: 0, upsertedCount: 0 });
  const changed = await c.updateOne({ k: 'v' }, { $set: { a: 2 } });
  expect(changed).toMatchObject({ matchedCount: 1, modifiedCount: 1 });
  expect(await c.findOne({ k: 'v' })).toEqual({ _id: r.upsertedId, k: 'v', a: 2 });
});

it('supports replacements, findOneAndDelete and findOneAndReplace', async () => {
  const c = db().collection('r');
  await c.insertOne({ _id: 'a' as never, x: 1, y: 2 });
  await c.replaceOne({ _id: 'a' as never }, { z: 3 });
  expect(await c.findOne({ _id: 'a' as never })).toEqual({ _id: 'a', z: 3 });
  expect(await c.findOneAndReplace({ z: 3 }, { w: 4 }, { returnDocument: 'after', projection: { _id: 0 } })).toEqual({ w: 4 });
  expect(await c.findOneAndDelete({ w: 4 })).toEqual({ _id: 'a', w: 4 });
  expect(await c.countDocuments({})).toBe(0);
  // The driver refuses a multi replacement itself; the server must refuse it too.
  await c.insertOne({ _id: 'b' as never });
  const raw = await client.db(c.dbName).command({ update: 'r', updates: [{ q: {}, u: { a: 1 }, multi: true }] });
  expect(raw.writeErrors).toEqual([expect.objectContaining({ index: 0, code: 9 })]);
});

it('rejects type errors in updates the way MongoDB does', async () => {
  const c = db().collection('t');
  await c.insertOne({ _id: 'a' as never, s: 'text', n: 1 });
  expect((await serverError(c.updateOne({}, { $inc: { s: 1 } }))).code).toBe(14);
  expect((await serverError(c.updateOne({}, { $push: { s: 1 } as never }))).code).toBe(2);
  expect((await serverError(c.updateOne({}, { $set: { 'n.deep': 1 } }))).code).toBe(28);
  expect((await serverError(c.updateOne({}, { $set: { n: 2 }, $inc: { n: 1 } }))).code).toBe(40);
  expect((await serverError(c.updateOne({}, { $set: { _id: 'b' } as never }))).code).toBe(66);
  expect((await serverError(c.updateOne({}, { $frob: { n: 1 } } as never))).code).toBe(9);
  expect(await c.findOne({})).toEqual({ _id: 'a', s: 'text', n: 1 });
});

it('enforces unique indexes with E11000 documents and keeps unordered inserts going', async () => {
  const c = db().collection('ix');
  await c.createIndex({ email: 1 }, { unique: true });
  await c.insertOne({ _id: 1 as never, email: 'a' });
  const err = await serverError(c.insertOne({ _id: 2 as never, email: 'a' }));
  expect(err.code).toBe(11000);
  expect(err.message).toMatch(/^E11000 duplicate key error collection: wire_\d+\.ix index: email_1 dup key: \{ email: "a" \}$/);
  expect(err.errorResponse).toMatchObject({ keyPattern: { email: 1 }, keyValue: { email: 'a' } });
  const bulk = await c
    .insertMany(
      [
        { _id: 3, email: 'b' },
        { _id: 4, email: 'a' },
        { _id: 5, email: 'c' },
      ] as never[],
      { ordered: false },
    )
    .catch((e: { insertedCount: number }) => e);
  expect((bulk as { insertedCount: number }).insertedCount).toBe(2);
  expect(await c.countDocuments({})).toBe(3);
});

it('lists, conflicts on and drops indexes', async () => {
  const c = db().collection('li');
  await c.createIndex({ a: 1, b: -1 }, { unique: true, name: 'ab' });
  await c.createIndex({ at: 1 }, { expireAfterSeconds: 60 });
  expect(await c.listIndexes().toArray()).toEqual([
    { v: 2, key: { _id: 1 }, name: '_id_' },
    { v: 2, key: { a: 1, b: -1 }, name: 'ab', unique: true },
    { v: 2, key: { at: 1 }, name: 'at_1', expireAfterSeconds: 60 },
  ]);
  expect((await serverError(c.createIndex({ at: 1 }, { expireAfterSeconds: 5 }))).code).toBe(85);
  expect((await serverError(c.createIndex({ z: 1 }, { name: 'ab' }))).code).toBe(86);
  await c.dropIndex('ab');
  expect((await c.listIndexes().toArray()).map((i) => i.name)).toEqual(['_id_', 'at_1']);
  expect((await serverError(db().collection('nothing').listIndexes().toArray())).code).toBe(26);
});

it('removes expired documents on its TTL timer', async () => {
  const c = db().collection('ttl');
  await c.createIndex({ at: 1 }, { expireAfterSeconds: 0 });
  await c.insertMany([{ at: new Date(Date.now() - 1) }, { at: new Date(Date.now() + 3_600_000) }, { at: 'never' }]);
  const deadline = Date.now() + 5000;
  while (Date.now() < deadline && (await c.countDocuments({})) > 2) await new Promise((r) => setTimeout(r, 25));
  expect(await c.countDocuments({})).toBe(2);
});

it('keeps databases apart and drops collections and databases', async () => {
  const a = db();
  const b = db();
  await a.collection('x').insertOne({ v: 'a' });
  await b.collection('x').insertOne({ v: 'b' });
  expect(
    await a
      .collection('x')
      .find({}, { projection: { _id: 0 } })
      .toArray(),
  ).toEqual([{ v: 'a' }]);
  expect((await a.listCollections().toArray()).map((c) => c.name)).toEqual(['x']);
  expect(await a.collection('x').drop()).toBe(true);
  expect(await a.collection('x').countDocuments({})).toBe(0);
  await b.dropDatabase();
  expect(await b.collection('x').countDocuments({})).toBe(0);
  const names = (await client.db('admin').admin().listDatabases()).databases.map((d) => d.name);
  expect(names).toContain(a.databaseName);
  expect(names).not.toContain(b.databaseName);
});

it('answers ping, buildInfo and hello', async () => {
  expect(await client.db('admin').command({ ping: 1 })).toEqual({ ok: 1 });
  expect(await client.db('admin').command({ buildInfo: 1 })).toMatchObject({ version: '7.0.0', ok: 1 });
  expect(await client.db('admin').command({ hello: 1 })).toMatchObject({ isWritablePrimary: true, ok: 1 });
});
