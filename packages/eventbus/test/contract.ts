// The one contract every EventBus adapter must pass (run by inprocess.test.ts and nats.test.ts).
import type { EventBus, Subscription } from '../src/index.js';
import { bytes, collector, sleep, uniq, waitFor } from './helpers.js';

/** Long enough for a wrong extra delivery to show up, short enough to keep the suite fast. */
const QUIET_MS = 400;

export function runEventBusContract(name: string, makeBus: () => Promise<EventBus>): void {
  describe(`EventBus contract: ${name}`, () => {
    const open: EventBus[] = [];
    const cleanups: Array<() => void> = [];
    const newBus = async () => {
      const bus = await makeBus();
      open.push(bus);
      return bus;
    };
    afterEach(async () => {
      for (const fn of cleanups.splice(0)) fn();
      await Promise.all(open.splice(0).map((b) => b.close()));
    });

    it('delivers published messages to a subscriber, with msgId and deliveryCount 1', async () => {
      const bus = await newBus();
      const subj = `media.c${uniq()}.created`;
      const c = collector();
      await bus.subscribe(subj, c.handler);
      await bus.publish(subj, bytes('one'), { msgId: 'id-1' });
      await bus.publish(subj, bytes('two'));
      await waitFor('two messages', () => c.got.length === 2);
      expect(c.texts()).toEqual(['one', 'two']);
      expect(c.got.map((m) => [m.subject, m.msgId, m.deliveryCount])).toEqual([
        [subj, 'id-1', 1],
        [subj, undefined, 1],
      ]);
      expect(c.got[0]!.data).toBeInstanceOf(Uint8Array);
    });

    it('drops a second publish with the same msgId', async () => {
      const bus = await newBus();
      const subj = `media.c${uniq()}.dedup`;
      const durable = collector();
      const live = collector();
      await bus.subscribe(subj, durable.handler, { durable: `d${uniq()}` });
      await bus.subscribe(subj, live.handler);
      const id = `m-${uniq()}`;
      await bus.publish(subj, bytes('first'), { msgId: id });
      await bus.publish(subj, bytes('again'), { msgId: id });
      await bus.publish(subj, bytes('other'), { msgId: `${id}-2` });
      await waitFor('both messages', () => durable.got.length >= 2 && live.got.length >= 2);
      await sleep(QUIET_MS);
      expect(durable.texts().sort()).toEqual(['first', 'other']);
      expect(live.texts().sort()).toEqual(['first', 'other']);
    });

    it('shares a durable consumer between subscribers: each message handled exactly once', async () => {
      const bus = await newBus();
      const subj = `media.c${uniq()}.work`;
      const durable = `workers${uniq()}`;
      const a = collector();
      const b = collector();
      await bus.subscribe(subj, a.handler, { durable });
      await bus.subscribe(subj, b.handler, { durable });
      const sent = Array.from({ length: 20 }, (_, i) => `job-${i}`);
      for (const s of sent) await bus.publish(subj, bytes(s));
      await waitFor('20 deliveries', () => a.got.length + b.got.length >= 20);
      await sleep(QUIET_MS);
      const all = [...a.texts(), ...b.texts()];
      expect(all.sort()).toEqual([...sent].sort());
      expect([...a.got, ...b.got].every((m) => m.deliveryCount === 1)).toBe(true);
    });

    it('resumes a durable after stop: messages published meanwhile arrive on re-subscribe', async () => {
      const bus = await newBus();
      const subj = `media.c${uniq()}.resume`;
      const durable = `d${uniq()}`;
      await bus.publish(subj, bytes('before-consumer-existed'));
      const first = collector();
      const sub = await bus.subscribe(subj, first.handler, { durable });
      await bus.publish(subj, bytes('m1'));
      await waitFor('m1', () => first.got.length === 1);
      await sub.stop();
      await bus.publish(subj, bytes('m2'));
      await bus.publish(subj, bytes('m3'));
      await sleep(100);
      expect(first.texts()).toEqual(['m1']); // stopped: nothing more for it
      const second = collector();
      await bus.subscribe(subj, second.handler, { durable });
      await waitFor('m2 and m3', () => second.got.length >= 2);
      await sleep(QUIET_MS);
      // Starts where it left off: neither m1 again nor what came before the consumer was created.
      expect(second.texts()).toEqual(['m2', 'm3']);
      expect(second.got.map((m) => m.deliveryCount)).toEqual([1, 1]);
    });

    it('redelivers after a handler failure, with backoff and incremented deliveryCount', async () => {
      const bus = await newBus();
      const subj = `media.c${uniq()}.nak`;
      const c = collector((m) => {
        if (m.deliveryCount < 3) throw new Error('not yet');
      });
      await bus.subscribe(subj, c.handler, { durable: `d${uniq()}`, backoffMs: [150, 50], maxDeliver: 5 });
      await bus.publish(subj, bytes('retry-me'));
      await waitFor('third delivery', () => c.got.length >= 3);
      await sleep(QUIET_MS);
      expect(c.got.map((m) => [m.text, m.deliveryCount])).toEqual([
        ['retry-me', 1],
        ['retry-me', 2],
        ['retry-me', 3],
      ]);
      // backoffMs[0] after the first failure; tolerance for timer granularity.
      expect(c.got[1]!.at - c.got[0]!.at).toBeGreaterThanOrEqual(120);
    });

    it('gives up after maxDeliver deliveries', async () => {
      const bus = await newBus();
      const subj = `media.c${uniq()}.poison`;
      const c = collector((m) => {
        if (m.text === 'poison') throw new Error('always fails');
      });
      await bus.subscribe(subj, c.handler, { durable: `d${uniq()}`, backoffMs: [20], maxDeliver: 3 });
      await bus.publish(subj, bytes('poison'));
      await waitFor('three deliveries', () => c.got.length >= 3);
      await sleep(QUIET_MS);
      expect(c.got.map((m) => m.deliveryCount)).toEqual([1, 2, 3]);
      // The consumer keeps working for later messages.
      await bus.publish(subj, bytes('fine'));
      await waitFor('next message', () => c.texts().includes('fine'));
    });

    it('redelivers when a handler hangs past ackWaitMs', async () => {
      const bus = await newBus();
      const subj = `media.c${uniq()}.hang`;
      let release = () => {};
      const hung = new Promise<void>((r) => (release = r));
      cleanups.push(() => release());
      const c = collector(async (m) => {
        if (m.deliveryCount === 1) await hung;
      });
      await bus.subscribe(subj, c.handler, { durable: `d${uniq()}`, ackWaitMs: 500, backoffMs: [10] });
      await bus.publish(subj, bytes('slow'));
      await waitFor('redelivery', () => c.got.length >= 2);
      expect(c.got[1]!.deliveryCount).toBe(2);
      expect(c.got[1]!.at - c.got[0]!.at).toBeGreaterThanOrEqual(400);
      await sleep(700); // longer than ackWait: the second delivery was acked, no third
      expect(c.got).toHaveLength(2);
    });

    it('broadcasts to every non-durable subscriber, new messages only', async () => {
      const bus = await newBus();
      const subj = `media.c${uniq()}.key_revoked`;
      await bus.publish(subj, bytes('old'));
      const a = collector();
      const b = collector();
      await bus.subscribe(subj, a.handler);
      const subB: Subscription = await bus.subscribe(subj, b.handler);
      await bus.publish(subj, bytes('k1'));
      await bus.publish(subj, bytes('k2'));
      await waitFor('both got both', () => a.got.length >= 2 && b.got.length >= 2);
      await subB.stop();
      await bus.publish(subj, bytes('k3'));
      await waitFor('a got k3', () => a.got.length >= 3);
      await sleep(QUIET_MS);
      expect(a.texts()).toEqual(['k1', 'k2', 'k3']);
      expect(b.texts()).toEqual(['k1', 'k2']);
    });

    it('matches wildcard subjects ("*" one token, ">" the rest)', async () => {
      const bus = await newBus();
      const base = `media.c${uniq()}`;
      const all = collector();
      const done = collector();
      await bus.subscribe(`${base}.>`, all.handler);
      await bus.subscribe(`${base}.*.done`, done.handler, { durable: `d${uniq()}` });
      for (const s of ['a.done', 'b.done', 'a.started', 'x', 'a.b.done']) await bus.publish(`${base}.${s}`, bytes(s));
      await waitFor('all five', () => all.got.length >= 5);
      await waitFor('two done', () => done.got.length >= 2);
      await sleep(QUIET_MS);
      expect(all.texts().sort()).toEqual(['a.b.done', 'a.done', 'a.started', 'b.done', 'x']);
      expect(done.texts().sort()).toEqual(['a.done', 'b.done']);
      expect(done.got.map((m) => m.subject).sort()).toEqual([`${base}.a.done`, `${base}.b.done`]);
    });

    it('rejects wildcard publish subjects, bad durable names and use after close', async () => {
      const bus = await newBus();
      await expect(bus.publish('media.*.x', bytes('x'))).rejects.toThrow(/subject/);
      await expect(bus.publish('media..x', bytes('x'))).rejects.toThrow(/subject/);
      await expect(bus.subscribe('media.x', async () => {}, { durable: 'has.dot' })).rejects.toThrow(/durable/);
      await bus.close();
      await expect(bus.publish('media.x.y', bytes('x'))).rejects.toThrow(/closed/);
      await expect(bus.subscribe('media.x.y', async () => {})).rejects.toThrow(/closed/);
    });
  });
}
