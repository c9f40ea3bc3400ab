import { jest } from '@jest/globals';
import { connectEventBus, InProcessEventBus } from '../src/index.js';
import { runEventBusContract } from './contract.js';
import { bytes, collector, markerSeenByAll, uniq, waitFor } from './helpers.js';

const quiet = () => {};

runEventBusContract('in-process', {
  makeBus: async (onError = quiet) => new InProcessEventBus({ onError }),
  unacked: async (bus, name) => (bus as InProcessEventBus).unacked(name),
});

describe('InProcessEventBus specifics', () => {
  it('is what connectEventBus returns without natsUrl', async () => {
    const bus = await connectEventBus({});
    expect(bus).toBeInstanceOf(InProcessEventBus);
    await bus.close();
  });

  it('rejects subjects outside the configured stream subjects, like JetStream', async () => {
    const bus = new InProcessEventBus({ onError: quiet });
    await expect(bus.publish('other.thing', bytes('x'))).rejects.toThrow(/no stream/);
    await expect(bus.subscribe('other.>', async () => {})).rejects.toThrow(/not within/);
    await bus.close();
  });

  it('splits a durable round-robin between its subscribers', async () => {
    const bus = new InProcessEventBus({ onError: quiet });
    const a = collector();
    const b = collector();
    await bus.subscribe('media.rr.x', a.handler, { durable: 'rr' });
    await bus.subscribe('media.rr.x', b.handler, { durable: 'rr' });
    for (let i = 0; i < 10; i++) await bus.publish('media.rr.x', bytes(String(i)));
    await waitFor('10 messages', () => a.got.length + b.got.length === 10);
    expect(a.got).toHaveLength(5);
    expect(b.got).toHaveLength(5);
    await bus.close();
  });

  it('keeps bounded retention: a durable resuming after the limit gets only retained messages', async () => {
    const bus = new InProcessEventBus({ onError: quiet, maxMessages: 3 });
    const durable = `d${uniq()}`;
    const first = collector();
    const sub = await bus.subscribe('media.ret.x', first.handler, { durable });
    await sub.stop();
    for (let i = 1; i <= 5; i++) await bus.publish('media.ret.x', bytes(String(i)));
    const second = collector();
    await bus.subscribe('media.ret.x', second.handler, { durable });
    await waitFor('retained messages', () => second.got.length >= 3);
    await markerSeenByAll(bus, 'media.ret.x', [second]);
    expect(second.texts()).toEqual(['3', '4', '5']);
    await bus.close();
  });

  it('forgets msgIds after the duplicate window', async () => {
    let now = 1_000_000; // the bus's clock, moved by hand
    const bus = new InProcessEventBus({ onError: quiet, duplicateWindowMs: 50, now: () => now });
    const c = collector();
    await bus.subscribe('media.win.x', c.handler);
    await bus.publish('media.win.x', bytes('a'), { msgId: 'same' });
    now += 49;
    await bus.publish('media.win.x', bytes('b'), { msgId: 'same' });
    now += 31; // 80 ms after the first
    await bus.publish('media.win.x', bytes('c'), { msgId: 'same' });
    await waitFor('two messages', () => c.got.length >= 2);
    expect(c.texts()).toEqual(['a', 'c']);
    await bus.close();
  });

  it('close() cancels pending redelivery timers', async () => {
    // Fake timers: the redelivery's 100 ms pass when the test says, not on the wall clock.
    jest.useFakeTimers();
    try {
      const retries: Array<number | undefined> = [];
      const bus = new InProcessEventBus({ onError: (_err, _msg, _final, retryInMs) => retries.push(retryInMs) });
      const c = collector(() => {
        throw new Error('fail');
      });
      await bus.subscribe('media.close.x', c.handler, { durable: 'closing', backoffMs: [100] });
      await bus.publish('media.close.x', bytes('x'));
      await jest.advanceTimersByTimeAsync(0); // the delivery and its failure (microtasks)
      expect(c.got).toHaveLength(1);
      expect(retries).toEqual([100]); // a redelivery is due in 100 ms
      await bus.close();
      await jest.advanceTimersByTimeAsync(250);
      expect(c.got).toHaveLength(1);
    } finally {
      jest.useRealTimers();
    }
  });
});
