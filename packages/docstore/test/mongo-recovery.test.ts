// The MongoDB store after server restarts. A polling monitor (a server that does not stream its
// topology) can write its check to a socket that is destroyed but not yet closed; that check
// never ends and the monitor never checks again, so every operation fails server selection
// (docs/decisions/0008-mongodb-monitor-hang.md). Real servers, and the MongoDB-wire test server,
// stream: the monitor waits on a read, which fails when the socket closes. The second test puts
// the monitor into that window through the driver's internals (mongodb 6.22.0): it hangs against
// a server that does not stream.
import { randomBytes } from 'node:crypto';
import { once, type EventEmitter } from 'node:events';
import type { MongoClient } from 'mongodb';
import { startMongo, waitFor, type TestMongo } from '@media/testkit';
import { isDocStoreOutage, openMongoDocStore, type DocStore } from '../src/index.js';

interface DriverMonitor extends EventEmitter {
  s: { state: string };
  connection: { socket: { destroy(): void; destroyed: boolean } } | null;
  /** Its check schedule: how long since the last check ended, and the least gap between two. */
  monitorId?: { toJSON(): { timeSinceLastCall: number; minHeartbeatFrequencyMS: number } };
}
interface DriverServer {
  description: { type: string; topologyVersion: unknown };
  monitor: DriverMonitor | null;
  requestCheck(): void;
}

let mongo: TestMongo;
beforeAll(async () => {
  mongo = await startMongo();
});
afterAll(async () => {
  await mongo?.stop();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The driver objects behind a store (its private client; the one server of a direct connection). */
function driverServer(store: DocStore): DriverServer {
  const client = (store as unknown as { client: MongoClient }).client;
  const topology = (client as unknown as { topology?: { s: { servers: Map<string, DriverServer> } } }).topology;
  const servers = [...(topology?.s.servers.values() ?? [])];
  expect(servers).toHaveLength(1);
  return servers[0]!;
}

/** Retries `op` until it succeeds or `withinMs` passes; the time it took, or the last error. */
async function recovered(op: () => Promise<unknown>, withinMs: number): Promise<{ ms: number; error?: unknown }> {
  const started = Date.now();
  let error: unknown;
  while (Date.now() - started < withinMs) {
    try {
      await op();
      return { ms: Date.now() - started };
    } catch (err) {
      error = err;
      await sleep(100);
    }
  }
  return { ms: Date.now() - started, error };
}

// restart() needs the local wire server: an external one (MONGODB_URL) cannot be stopped from here.
const local = process.env.MONGODB_URL ? test.skip : test;

test('the driver monitors the server by streaming, as with a real server', async () => {
  const store = await openMongoDocStore({ url: mongo.url, database: `rec_${randomBytes(4).toString('hex')}` });
  try {
    const client = (store as unknown as { client: MongoClient }).client;
    const awaited: boolean[] = [];
    // The monitor's next check, after the first hello: awaited (streamed) when the server sent a
    // topologyVersion, a plain poll otherwise.
    client.on('serverHeartbeatStarted', (e) => awaited.push(e.awaited));
    await store.collection('c').findOne({});
    const streaming = await recovered(async () => {
      if (!awaited.includes(true)) throw new Error(`no awaited heartbeat yet: ${JSON.stringify(awaited)}`);
    }, 5_000);
    expect(streaming.error).toBeUndefined();
    expect(driverServer(store).description.topologyVersion).toBeTruthy();
  } finally {
    await store.close();
  }
}, 30_000);

local(
  'recovers from one restart after another, each within seconds',
  async () => {
    const store = await openMongoDocStore({
      url: `${mongo.url}&heartbeatFrequencyMS=500`,
      database: `rec_${randomBytes(4).toString('hex')}`,
      serverSelectionTimeoutMS: 500,
    });
    try {
      const c = store.collection<{ _id: string; v: number }>('c');
      await c.insertOne({ _id: 'a', v: 1 });
      for (let round = 0; round < 4; round++) {
        await mongo.restart(async () => {
          expect(isDocStoreOutage(await c.findOne({ _id: 'a' }).catch((e: unknown) => e))).toBe(true);
        });
        const back = await recovered(() => c.updateMany({ _id: 'a' }, { $inc: { v: 1 } }), 15_000);
        expect(back.error).toBeUndefined();
      }
      expect(await c.findOne({ _id: 'a' })).toEqual({ _id: 'a', v: 5 });
    } finally {
      await store.close();
    }
  },
  90_000,
);

local(
  "recovers after a restart when the monitor's check was written to a destroyed, not yet closed socket",
  async () => {
    const store = await openMongoDocStore({ url: mongo.url, database: `rec_${randomBytes(4).toString('hex')}` });
    try {
      const c = store.collection<{ _id: string; v: number }>('c');
      await c.insertOne({ _id: 'a', v: 1 });
      const server = driverServer(store);
      const monitor = server.monitor!;
      // Past minHeartbeatFrequencyMS (500 ms) since the last check, a requested check runs at once.
      await waitFor('minHeartbeatFrequencyMS since the last check', () => {
        const schedule = monitor.monitorId?.toJSON();
        return schedule !== undefined && schedule.timeSinceLastCall > schedule.minHeartbeatFrequencyMS;
      });
      expect(monitor.connection).not.toBeNull();
      // A FIN from the server tears the socket down in one event-loop phase, its 'close' comes in a
      // later one; a failed operation's retry requests a check in between. Here: both at once.
      const checkStarted = once(monitor, 'serverHeartbeatStarted');
      monitor.connection!.socket.destroy();
      server.requestCheck();
      await checkStarted; // the check went out into that window

      await mongo.restart(async () => {
        // An operation while the server is down fails and marks the server Unknown: from now on
        // only a monitor check can make it selectable again. (The first may be written to a pooled
        // connection the server closed before its FIN was read: a raw EPIPE, an outage that does
        // not mark the server; the next one is refused and does.)
        await waitFor('a failed operation marking the server Unknown', async () => {
          expect(isDocStoreOutage(await c.findOne({ _id: 'a' }).catch((e: unknown) => e))).toBe(true);
          return server.description.type === 'Unknown';
        });
        expect(server.description.type).toBe('Unknown');
      });
      const back = await recovered(() => c.findOne({ _id: 'a' }), 15_000);
      expect(back.error).toBeUndefined();
      expect(await c.findOne({ _id: 'a' })).toEqual({ _id: 'a', v: 1 });
      expect(server.description.type).not.toBe('Unknown');
    } finally {
      await store.close();
    }
  },
  30_000,
);
