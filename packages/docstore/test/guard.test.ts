// guardDocStore puts every database call through one guard (platform's breaker); which MongoDB
// errors are outages (connectivity, failover) and which are answers (duplicate key...).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MongoNetworkError, MongoServerError } from 'mongodb';
import { DuplicateKeyError, guardDocStore, isDocStoreOutage, openEmbeddedDocStore } from '../src/index.js';
import { isMongoOutage } from '../src/mongo/outage.js';

test('every collection operation and ping go through the guard; answers pass unchanged', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'guard-'));
  const store = await openEmbeddedDocStore({ dataDir: dir, database: 'db' });
  let ran = 0;
  const guarded = guardDocStore(store, { run: (call) => (ran++, call()) });
  try {
    const c = guarded.collection<{ _id: string; n: number }>('things');
    expect(guarded.collection('things')).toBe(c);
    await c.createIndex({ keys: { n: 1 }, unique: true });
    await c.insertOne({ _id: 'a', n: 1 });
    await expect(c.insertOne({ _id: 'b', n: 1 })).rejects.toBeInstanceOf(DuplicateKeyError);
    expect(await c.findOne({ _id: 'a' })).toEqual({ _id: 'a', n: 1 });
    expect(await c.find({})).toHaveLength(1);
    expect(await c.countDocuments({})).toBe(1);
    expect(await c.findOneAndUpdate({ _id: 'a' }, { $inc: { n: 1 } })).toEqual({ _id: 'a', n: 2 });
    expect(await c.updateMany({}, { $set: { n: 5 } })).toBe(1);
    expect(await c.deleteOne({ _id: 'a' })).toBe(true);
    expect(await c.deleteMany({})).toBe(0);
    await guarded.ping();
    expect(c.name).toBe('things');
    expect(ran).toBe(11);
  } finally {
    await guarded.close();
    await rm(dir, { recursive: true, force: true });
  }
});

test('which MongoDB errors are outages', () => {
  expect(isMongoOutage(new MongoNetworkError('connection closed'))).toBe(true);
  expect(isMongoOutage(new MongoServerError({ code: 91, errmsg: 'shutting down' }))).toBe(true);
  expect(isMongoOutage(new MongoServerError({ code: 10107, errmsg: 'not primary' }))).toBe(true);
  expect(isMongoOutage(new MongoServerError({ code: 11000, errmsg: 'E11000 duplicate key' }))).toBe(false);
  expect(isMongoOutage(new MongoServerError({ code: 121, errmsg: 'Document failed validation' }))).toBe(false);
  expect(isMongoOutage(new DuplicateKeyError())).toBe(false);
  expect(isMongoOutage(new Error('bug'))).toBe(false);
  // The store's own errors are never outages, whichever engine is loaded.
  expect(isDocStoreOutage(new DuplicateKeyError())).toBe(false);
  expect(isDocStoreOutage(new Error('bug'))).toBe(false);
});
