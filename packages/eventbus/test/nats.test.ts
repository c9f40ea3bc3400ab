// The contract against a real nats-server (spawned by testkit), plus NATS-only fault behaviour.
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { canSpawnNats, natsAvailable, settlesWithin, startNatsServer, underCI, type NatsTestServer } from '@media/testkit';
import { connectEventBus } from '../src/index.js';
import { JetStreamEventBus, type JetStreamEventBusOptions } from '../src/jetstream/bus.js';
import { runEventBusContract } from './contract.js';
import { bytes, collector, markerSeenByAll, sleep, uniq, waitFor } from './helpers.js';

// Outside CI a machine without nats-server skips (loudly); under CI startNatsServer() throws instead.
const run = natsAvailable() || underCI;
if (!run) console.warn('nats-server not found (and NATS_URL unset): skipping the JetStream event-bus tests');

(run ? describe : describe.skip)('JetStreamEventBus against nats-server', () => {
  let server: NatsTestServer | undefined;
  beforeAll(async () => {
    server = await startNatsServer();
  }, 30_000);
  afterAll(async () => {
    await server?.stop();
  });

  const connectBus = (extra: Partial<JetStreamEventBusOptions> = {}) =>
    JetStreamEventBus.connect({
      natsUrl: server!.url,
      publishTimeoutMs: 1500,
      reconnectTimeWaitMs: 100,
      closeTimeoutMs: 1000,
      onError: () => {},
      ...extra,
    });

  runEventBusContract('JetStream', {
    makeBus: (onError) => connectBus(onError ? { onError } : {}),
    // The server's own count for the consumer (num_ack_pending), read on an admin connection.
    unacked: async (_bus, name) => {
      const admin = await connect({ servers: server!.url });
      try {
        const jsm = await jetstreamManager(admin);
        return (await jsm.consumers.info('MEDIA_EVENTS', name)).num_ack_pending;
      } finally {
        await admin.close();
      }
    },
  });

  it('is what connectEventBus returns with natsUrl, and re-connecting updates the stream', async () => {
    const bus = await connectEventBus({ natsUrl: server!.url });
    expect(bus).toBeInstanceOf(JetStreamEventBus);
    // Same stream, different max_age: create-or-update must not fail.
    const again = await connectBus({ maxAgeMs: 24 * 3600 * 1000 });
    await Promise.all([bus.close(), again.close()]);
  });

  it('rejects publishing to a subject no stream carries', async () => {
    const bus = await connectBus();
    await expect(bus.publish(`other.${uniq()}`, bytes('x'))).rejects.toThrow(/publish to other/);
    await bus.close();
  });

  it('work queue: jobs queued before any worker are delivered once and shared', async () => {
    const bus = await connectBus();
    const t = uniq();
    const queue = await bus.createWorkQueue(`JOBS_${t}`, `jobs.${t}.>`);
    for (let i = 0; i < 6; i++) await queue.publish(`jobs.${t}.transcode`, bytes(`job${i}`), { msgId: `job${i}` });
    await queue.publish(`jobs.${t}.transcode`, bytes('job0'), { msgId: 'job0' }); // dedup
    const a = collector();
    const b = collector();
    await queue.consume('workers', a.handler);
    await queue.consume('workers', b.handler);
    await waitFor('six jobs', () => a.got.length + b.got.length >= 6);
    await markerSeenByAll(queue, `jobs.${t}.transcode`, [a, b]); // the duplicate would have come before
    expect([...a.texts(), ...b.texts()].sort()).toEqual(['job0', 'job1', 'job2', 'job3', 'job4', 'job5']);
    await bus.close();
  });

  it('recreates consumers deleted on the server (durable and non-durable) and keeps delivering', async () => {
    const bus = await connectBus();
    const subj = `media.del${uniq()}.x`;
    const durable = `d${uniq()}`;
    const d = collector();
    const e = collector();
    await bus.subscribe(subj, d.handler, { durable });
    await bus.subscribe(subj, e.handler);
    const admin = await connect({ servers: server!.url });
    try {
      const jsm = await jetstreamManager(admin);
      for await (const ci of jsm.consumers.list('MEDIA_EVENTS')) {
        if (ci.config.filter_subject === subj) await jsm.consumers.delete('MEDIA_EVENTS', ci.name);
      }
      // Consumers come back as "new from now": publish until both see a message again.
      const deadline = Date.now() + 10_000;
      while (!(d.got.length > 0 && e.got.length > 0)) {
        if (Date.now() > deadline) throw new Error(`no delivery after delete (durable ${d.got.length}, non-durable ${e.got.length})`);
        await bus.publish(subj, bytes('ping'));
        await sleep(250);
      }
    } finally {
      await admin.close();
      await bus.close();
    }
  }, 30_000);

  const restartable = !process.env.NATS_URL; // an external server cannot be restarted from here
  (restartable ? it : it.skip)(
    'fails publishes fast while the server is down and recovers after restart',
    async () => {
      const bus = await connectBus();
      const subj = `media.f${uniq()}.x`;
      const c = collector();
      await bus.subscribe(subj, c.handler, { durable: `d${uniq()}` });
      const live = collector();
      await bus.subscribe(subj, live.handler);
      await bus.publish(subj, bytes('before'));
      await waitFor('before', () => c.got.length === 1 && live.got.length === 1);

      await server!.restart(async () => {
        // Failed within its publish deadline (publishTimeoutMs 1.5 s), not held for the reconnect.
        await expect(settlesWithin('the publish to fail', bus.publish(subj, bytes('while-down')), 4000)).rejects.toThrow(/publish to/);
      });

      // No manual reconnect: the client reconnects by itself; publish succeeds once it has.
      const deadline = Date.now() + 15_000;
      for (;;) {
        try {
          await bus.publish(subj, bytes('after'), { msgId: `after-${subj}` });
          break;
        } catch (err) {
          if (Date.now() > deadline) throw err;
          await sleep(100);
        }
      }
      await waitFor('after, on the durable', () => c.texts().includes('after'), 15_000);
      await waitFor('after, on the non-durable', () => live.texts().includes('after'), 15_000);
      // And a durable subscribed after the restart works too.
      const fresh = collector();
      await bus.subscribe(subj, fresh.handler, { durable: `d${uniq()}` });
      await bus.publish(subj, bytes('after2'));
      await waitFor('after2', () => fresh.texts().includes('after2'));
      await bus.close();
    },
    60_000,
  );
});

// A NATS that asks for a login: the client drops `user:pass@` from a URL, so the adapter must pass them.
(canSpawnNats() || underCI ? describe : describe.skip)('NATS_URL with credentials, against a nats-server that asks for them', () => {
  let server: NatsTestServer | undefined;
  beforeAll(async () => {
    server = await startNatsServer({ user: 'media', pass: 'p@ss:word' });
  }, 30_000);
  afterAll(async () => {
    await server?.stop();
  });
  const withAuth = (auth: string) => server!.url.replace('nats://', `nats://${auth}`);
  const options = { publishTimeoutMs: 1500, reconnectTimeWaitMs: 100, closeTimeoutMs: 1000, onError: () => {} };

  it('logs in with user:password@ (percent-encoded) and carries events', async () => {
    const bus = await JetStreamEventBus.connect({ natsUrl: withAuth('media:p%40ss%3Aword@'), ...options });
    const got = collector();
    const subj = `media.auth${uniq()}`;
    await bus.subscribe(subj, got.handler);
    await bus.publish(subj, bytes('hello'));
    await waitFor('the event', () => got.texts().includes('hello'));
    await bus.close();
  });

  it('is refused without them or with a wrong password, and tls:// does not fall back to plain text', async () => {
    await expect(JetStreamEventBus.connect({ natsUrl: server!.url, ...options })).rejects.toThrow(/Authorization Violation/i);
    await expect(JetStreamEventBus.connect({ natsUrl: withAuth('media:wrong@'), ...options })).rejects.toThrow(/Authorization Violation/i);
    const tlsUrl = withAuth('media:p%40ss%3Aword@').replace('nats://', 'tls://');
    await expect(JetStreamEventBus.connect({ natsUrl: tlsUrl, ...options })).rejects.toThrow(/does not support 'tls'/);
  });
});
