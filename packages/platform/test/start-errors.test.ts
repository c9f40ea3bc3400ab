// A dependency refusing us at start says which setting, which servers and why, in one line with
// no credentials (runMain prints it without a stack).
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { pino } from 'pino';
import { canSpawnNats, startMongo, startNatsServer, underCI } from '@media/testkit';
import { connectBusAtStart, DependencyStartError, openStoreAtStart, startFailure } from '../src/index.js';

/**
 * A loopback port nothing listens on, below Linux's ephemeral range: a port from listen(0) is in
 * that range, and a client retrying a connection to it can be handed that very port as its own
 * source port and connect to itself (TCP self-connect): the MongoDB driver then reads "connection
 * closed", not ECONNREFUSED. Tests listen on port 0, so nothing else takes a port below it.
 */
async function closedPort(): Promise<number> {
  let low = 32768;
  try {
    low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]) || low;
  } catch {
    // Not Linux: its default range start.
  }
  for (;;) {
    const port = 10_000 + Math.floor(Math.random() * (low - 10_000));
    const srv = createServer();
    const bound = await new Promise<boolean>((r) => {
      srv.once('error', () => r(false));
      srv.listen(port, '127.0.0.1', () => r(true));
    });
    if (!bound) continue;
    await new Promise<void>((r) => srv.close(() => r()));
    return port;
  }
}

async function refusal(start: () => Promise<unknown>): Promise<string> {
  const err = await start().then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(DependencyStartError);
  const line = startFailure(err);
  expect(line).not.toContain('\n'); // no stack
  expect(line).not.toMatch(/s3cret/);
  return line;
}

const quiet = pino({ level: 'silent' });

(canSpawnNats() || underCI ? describe : describe.skip)('NATS', () => {
  test('credentials missing or wrong, or nothing listening: the setting, the server and what to check', async () => {
    const nats = await startNatsServer({ user: 'media', pass: 's3cret' });
    try {
      const at = nats.url.replace('nats://', '');
      expect(await refusal(() => connectBusAtStart(nats.url, quiet))).toBe(
        `Cannot use NATS at ${at} (NATS_URL): Authorization Violation. Check the user and password (or token) in NATS_URL.`,
      );
      expect(await refusal(() => connectBusAtStart(nats.url.replace('nats://', 'nats://media:wrong-s3cret@'), quiet))).toMatch(
        /^Cannot use NATS at .* Check the user/,
      );
    } finally {
      await nats.stop();
    }
    const port = await closedPort();
    expect(await refusal(() => connectBusAtStart(`nats://media:s3cret@127.0.0.1:${port}`, quiet))).toBe(
      `Cannot use NATS at 127.0.0.1:${port} (NATS_URL): connection refused.`,
    );
  }, 30_000);
});

describe('MongoDB', () => {
  test('nothing listening, or not the replica set named: each server and what was found there', async () => {
    const port = await closedPort();
    const down = await refusal(() =>
      openStoreAtStart({
        mongoUrl: `mongodb://app:s3cret@127.0.0.1:${port}/?serverSelectionTimeoutMS=500`,
        database: 't',
        dataDir: '/nonexistent',
      }),
    );
    expect(down).toMatch(
      new RegExp(
        `^Cannot use MongoDB at 127\\.0\\.0\\.1:${port} \\(MONGODB_URL\\): .*ECONNREFUSED.* \\(servers: 127\\.0\\.0\\.1:${port}: .*ECONNREFUSED`,
      ),
    );

    const mongo = await startMongo();
    try {
      if (mongo.external) return; // a real server's topology is its own
      const host = new URL(mongo.url).host;
      const wrongSet = await refusal(() =>
        openStoreAtStart({
          mongoUrl: `mongodb://${host},127.0.0.1:${port}/?replicaSet=rs9&serverSelectionTimeoutMS=800`,
          database: 't',
          dataDir: '/nonexistent',
        }),
      );
      expect(wrongSet).toMatch(
        new RegExp(`^Cannot use MongoDB at ${host.replace(/\./g, '\\.')}, 127\\.0\\.0\\.1:${port} \\(MONGODB_URL\\)`),
      );
      // The reachable one is named, beside the refused one (which alone would look like the cause).
      expect(wrongSet).toContain(`${host}: left out by the driver (is it a member of replica set rs9?)`);
    } finally {
      await mongo.stop();
    }
  }, 30_000);
});
