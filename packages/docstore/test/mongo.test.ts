// The MongoDB adapter: the shared contract over the official driver, against the wire test server
// by default or a real MongoDB when MONGODB_URL is set.
import { randomBytes } from 'node:crypto';
import { createServer, type AddressInfo } from 'node:net';
import { MongoClient } from 'mongodb';
import { startMongo, startTcpProxy, type TestMongo } from '@media/testkit';
import { DuplicateKeyError, isDocStoreOutage, openDocStore, openMongoDocStore } from '../src/index.js';
import { runDocStoreContract, type Item } from './contract.js';

let mongo: TestMongo;
// Unique per run so a shared external server never mixes runs.
const prefix = `ds_${randomBytes(4).toString('hex')}`;
const used = new Set<string>();

beforeAll(async () => {
  mongo = await startMongo();
});

afterAll(async () => {
  if (mongo?.external && used.size > 0) {
    const client = await MongoClient.connect(mongo.url);
    try {
      for (const db of used) await client.db(db).dropDatabase();
    } finally {
      await client.close();
    }
  }
  await mongo?.stop();
});

const dbName = (logical: string): string => {
  const name = `${prefix}_${logical}`.slice(0, 60);
  used.add(name);
  return name;
};

runDocStoreContract(
  'mongodb driver',
  (database) => openMongoDocStore({ url: mongo.url, database: dbName(database) }),
  // A real MongoDB removes expired documents once a minute; the test server every second.
  { ttlWaitMs: process.env.MONGODB_URL ? 90_000 : 10_000 },
);

describe('mongodb adapter specifics', () => {
  it('openDocStore with mongoUrl uses MongoDB and the given database', async () => {
    const database = dbName('via_open');
    const store = await openDocStore({ mongoUrl: mongo.url, database, dataDir: '/nonexistent' });
    try {
      await store.collection<Item>('things').insertOne({ _id: 'x', v: 1 });
      const client = await MongoClient.connect(mongo.url);
      try {
        expect(
          await client
            .db(database)
            .collection('things')
            .findOne({ _id: 'x' as never }),
        ).toEqual({ _id: 'x', v: 1 });
      } finally {
        await client.close();
      }
    } finally {
      await store.close();
    }
  });

  it('maps duplicate key errors from the server to DuplicateKeyError with the server message', async () => {
    const store = await openMongoDocStore({ url: mongo.url, database: dbName('dups') });
    try {
      const c = store.collection<Item>('c');
      await c.insertOne({ _id: 'a' });
      const err = await c.insertOne({ _id: 'a' }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(DuplicateKeyError);
      expect((err as DuplicateKeyError).code).toBe(11000);
      expect((err as Error).message).toMatch(/E11000/);
    } finally {
      await store.close();
    }
  });

  it('fails fast when no server answers', async () => {
    // A loopback port that was just free: connections to it are refused.
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address() as AddressInfo;
    await new Promise((resolve) => probe.close(resolve));
    // Refused at once, or given up at the driver's own bound (serverSelectionTimeoutMS): not a hang.
    await expect(
      openMongoDocStore({ url: `mongodb://127.0.0.1:${port}/?directConnection=true`, database: 'x', serverSelectionTimeoutMS: 300 }),
    ).rejects.toThrow(/ECONNREFUSED|Server selection timed out after 300 ms/);
  });

  it('fails operations on a frozen server as an outage within the socket timeout, and recovers', async () => {
    if (mongo.external) return; // the proxy below fronts the local wire server only
    const target = new URL(mongo.url);
    const proxy = await startTcpProxy(target.hostname, Number(target.port));
    // The driver's shortest heartbeat (an operator's setting in MONGODB_URL): recovery waits for one.
    const url = `${mongo.url.replace(`${target.hostname}:${target.port}`, `127.0.0.1:${proxy.port}`)}&heartbeatFrequencyMS=500`;
    const store = await openMongoDocStore({ url, database: dbName('frozen'), socketTimeoutMS: 500, serverSelectionTimeoutMS: 1000 });
    try {
      const c = store.collection<Item>('c');
      await c.insertOne({ _id: 'a', v: 1 });
      proxy.freeze();
      const err = await c.findOne({ _id: 'a' }).catch((e: unknown) => e);
      expect(isDocStoreOutage(err)).toBe(true);
      // Bounded, not forever: ended by the driver's socket timeout (socketTimeoutMS), a network timeout.
      expect(err).toMatchObject({ name: 'MongoNetworkTimeoutError', message: expect.stringMatching(/timed out$/) });
      proxy.thaw();
      // Back once the driver's monitor hears from the server again: its streamed heartbeat (within
      // heartbeatFrequencyMS, 10 s by default), as with a real MongoDB; operations meanwhile fail selection.
      let back: unknown;
      const deadline = Date.now() + 20_000;
      do back = await c.findOne({ _id: 'a' }).catch((e: unknown) => e);
      while (!(back && typeof back === 'object' && 'v' in back) && Date.now() < deadline);
      expect(back).toEqual({ _id: 'a', v: 1 });
    } finally {
      await store.close();
      await proxy.close();
    }
  }, 30_000);
});
