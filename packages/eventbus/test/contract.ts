// The one contract every EventBus adapter must pass (run by inprocess.test.ts and nats.test.ts).
// No quiet periods: an extra delivery would have come before a marker published after it (one
// consumer delivers in order), and redeliveries are read from the adapter (its failure listener,
// its count of unacknowledged messages).
import type { BusMessage, EventBus, HandlerErrorListener, Subscription } from '../src/index.js';
import { bytes, collector, markerSeenByAll, uniq, waitFor } from './helpers.js';

export interface ContractAdapter {
  /** A new bus telling `onError` (when given) about handler failures. */
  makeBus(onError?: HandlerErrorListener): Promise<EventBus>;
  /** Messages the durable `name` has delivered and not had acknowledged yet, as the adapter counts them. */
  unacked(bus: EventBus, name: string): Promise<number>;
}

interface Failure {
  text: string;
  deliveryCount: number;
  final: boolean;
  retryInMs?: number;
}

export function runEventBusContract(name: string, adapter: ContractAdapter): void {
  describe(`EventBus contract: ${name}`, () => {
    const open: EventBus[] = [];
    const cleanups: Array<() => void> = [];
    /** Handler failures the current test's buses reported. */
    let failures: Failure[] = [];
    const newBus = async () => {
      const bus = await adapter.makeBus((_err: unknown, msg: BusMessage, final: boolean, retryInMs?: number) => {
        failures.push({
          text: new TextDecoder().decode(msg.data),
          deliveryCount: msg.deliveryCount,
          final,
          ...(retryInMs !== undefined ? { retryInMs } : {}),
        });
      });
      open.push(bus);
      return bus;
    };
    beforeEach(() => {
      failures = [];
    });
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
      await markerSeenByAll(bus, subj, [durable, live]);
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
      await markerSeenByAll(bus, subj, [a, b]); // each subscriber gets messages in order: all 20 came before

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
      const second = collector();
      await bus.subscribe(subj, second.handler, { durable });
      await waitFor('m2 and m3', () => second.got.length >= 2);
      await markerSeenByAll(bus, subj, [second]);
      expect(first.texts()).toEqual(['m1']); // stopped: nothing more for it
      // Starts where it left off: neither m1 again nor what came before the consumer was created.
      expect(second.texts()).toEqual(['m2', 'm3']);
      expect(second.got.map((m) => m.deliveryCount)).toEqual([1, 1]);
    });

    it('redelivers after a handler failure, with backoff and incremented deliveryCount', async () => {
      const bus = await newBus();
      const subj = `media.c${uniq()}.nak`;
      const c = collector((m) => {
        if (m.text === 'retry-me' && m.deliveryCount < 3) throw new Error('not yet');
      });
      await bus.subscribe(subj, c.handler, { durable: `d${uniq()}`, backoffMs: [150, 50], maxDeliver: 5 });
      await bus.publish(subj, bytes('retry-me'));
      await waitFor('third delivery', () => c.got.length >= 3);
      // The third delivery has been handled once a message published after it has.
      await markerSeenByAll(bus, subj, [c]);
      expect(c.got.filter((m) => m.text === 'retry-me').map((m) => [m.text, m.deliveryCount])).toEqual([
        ['retry-me', 1],
        ['retry-me', 2],
        ['retry-me', 3],
      ]);
      // Each failure was redelivered after its backoff entry; the third succeeded: nothing more due.
      expect(failures).toEqual([
        { text: 'retry-me', deliveryCount: 1, final: false, retryInMs: 150 },
        { text: 'retry-me', deliveryCount: 2, final: false, retryInMs: 50 },
      ]);
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
      // The third failure was the final one: dropped, not redelivered.
      await waitFor('the third failure', () => failures.length >= 3);
      expect(failures.map((f) => [f.deliveryCount, f.final])).toEqual([
        [1, false],
        [2, false],
        [3, true],
      ]);
      expect(c.got.map((m) => m.deliveryCount)).toEqual([1, 2, 3]);
      // The consumer keeps working for later messages.
      await bus.publish(subj, bytes('fine'));
      await waitFor('next message', () => c.texts().includes('fine'));
      expect(c.got.filter((m) => m.text === 'poison').map((m) => m.deliveryCount)).toEqual([1, 2, 3]);
    });

    it('redelivers when a handler hangs past ackWaitMs', async () => {
      const bus = await newBus();
      const subj = `media.c${uniq()}.hang`;
      let release = () => {};
      const hung = new Promise<void>((r) => (release = r));
      cleanups.push(() => release());
      const c = collector(async (m) => {
        if (m.text === 'slow' && m.deliveryCount === 1) await hung;
      });
      const durable = `d${uniq()}`;
      await bus.subscribe(subj, c.handler, { durable, ackWaitMs: 500, backoffMs: [10] });
      await bus.publish(subj, bytes('slow'));
      await waitFor('first delivery', () => c.got.length >= 1);
      // Not redelivered at once, nor after backoffMs (no failure): a message published now comes first.
      await bus.publish(subj, bytes('marker'));
      await waitFor('redelivery', () => c.texts().filter((t) => t === 'slow').length >= 2);
      expect(c.got.map((m) => [m.text, m.deliveryCount])).toEqual([
        ['slow', 1],
        ['marker', 1],
        ['slow', 2],
      ]);
      expect(failures).toEqual([]);
      // The second delivery was acked (the adapter holds nothing unacknowledged): no third.
      await waitFor('nothing unacknowledged', async () => (await adapter.unacked(bus, durable)) === 0);
      expect(c.texts().filter((t) => t === 'slow')).toHaveLength(2);
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
      await markerSeenByAll(bus, subj, [a]);
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
      await markerSeenByAll(bus, `${base}.m.done`, [all, done]);
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
