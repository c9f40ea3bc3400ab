// guardEventBus: every publish (events and work-queue jobs) through one guard (platform's
// breaker); a JetStream bus gives a view on the same connection, still a JetStreamEventBus.
import { natsAvailable, startNatsServer, underCI, type NatsTestServer } from '@media/testkit';
import { guardEventBus, InProcessEventBus, isBusOutage } from '../src/index.js';
import { JetStreamEventBus } from '../src/jetstream/bus.js';
import { bytes, collector, uniq, waitFor } from './helpers.js';

const run = natsAvailable() || underCI;

test('the in-process bus has nothing to be cut off from: returned as it is', () => {
  const bus = new InProcessEventBus();
  expect(guardEventBus(bus, { run: (call) => call() })).toBe(bus);
});

(run ? describe : describe.skip)('on JetStream', () => {
  let server: NatsTestServer | undefined;
  beforeAll(async () => {
    server = await startNatsServer();
  }, 30_000);
  afterAll(async () => {
    await server?.stop();
  });

  it('publishes (events and work queues) go through the guard; a refused publish is not sent; close closes the connection', async () => {
    const bus = await JetStreamEventBus.connect({ natsUrl: server!.url, publishTimeoutMs: 1000, closeTimeoutMs: 500, onError: () => {} });
    let open = false;
    let ran = 0;
    const refused = new Error('refused');
    const guarded = guardEventBus(bus, { run: (call) => (open ? Promise.reject(refused) : (ran++, call())) });
    expect(guarded).toBeInstanceOf(JetStreamEventBus);
    const t = uniq();
    const seen = collector();
    const sub = await guarded.subscribe(`media.${t}.>`, seen.handler);
    await guarded.publish(`media.${t}.a`, bytes('1'));
    const queue = await (guarded as JetStreamEventBus).createWorkQueue(`GUARD_${t}`, `guardq.${t}.>`);
    await queue.publish(`guardq.${t}.job`, bytes('j'));
    expect(ran).toBe(2);
    open = true;
    await expect(guarded.publish(`media.${t}.b`, bytes('2'))).rejects.toBe(refused);
    await expect(bus.publish(`media.${t}.c`, bytes('3'))).resolves.toBeUndefined(); // the unguarded bus is unaffected
    await waitFor('two events', () => seen.got.length >= 2);
    expect(seen.got.map((m) => m.subject)).toEqual([`media.${t}.a`, `media.${t}.c`]);
    await sub.stop();
    await guarded.close();
    await expect(bus.publish(`media.${t}.d`, bytes('4'))).rejects.toThrow('closed');
  });

  it('a publish while NATS is down is an outage', async () => {
    const bus = await JetStreamEventBus.connect({
      natsUrl: server!.url,
      publishTimeoutMs: 300,
      reconnectTimeWaitMs: 100,
      closeTimeoutMs: 500,
      onError: () => {},
    });
    try {
      await server!.restart(async () => {
        const err = await bus.publish(`media.${uniq()}.x`, bytes('x')).catch((e) => e);
        expect(isBusOutage(err)).toBe(true);
      });
    } finally {
      await bus.close();
    }
  });
});
