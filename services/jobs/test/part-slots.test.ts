// Where a split job's parts run (part-slots.ts): the job's own slot, plus free slots only, one
// part each, none while another job waits; nothing taken from another account's run.
import { partScheduler } from '../src/domain/part-slots.js';
import { Slots } from '../src/domain/slots.js';

/** Work that runs until released by the test: which parts are running, and how to end one. */
function parts() {
  const running = new Set<number>();
  const ends = new Map<number, () => void>();
  const work = (n: number) => () =>
    new Promise<number>((resolve) => {
      running.add(n);
      ends.set(n, () => {
        running.delete(n);
        resolve(n);
      });
    });
  return { running, end: (n: number) => ends.get(n)!(), work };
}

const flush = () => new Promise((resolve) => setImmediate(resolve));

test("the job's own slot, plus every free slot of the worker, one part each, given back as parts end", async () => {
  const slots = new Slots(3);
  const ownSlot = slots.tryAcquire({ accountId: 'a', kind: 'async' });
  expect(ownSlot).not.toBeNull();
  const schedule = partScheduler({ slots, accountId: 'a' });
  const p = parts();
  const all = Promise.all([0, 1, 2, 3, 4].map((n) => schedule(p.work(n))));
  await flush();
  expect([...p.running]).toEqual([0, 1, 2]); // its own slot and the two free ones
  expect(slots.inUse).toBe(3);
  p.end(1);
  await flush();
  expect([...p.running].sort()).toEqual([0, 2, 3]);
  p.end(0);
  p.end(2);
  p.end(3);
  await flush();
  expect([...p.running]).toEqual([4]);
  p.end(4);
  expect(await all).toEqual([0, 1, 2, 3, 4]);
  expect(slots.inUse).toBe(1); // only the job's own, which the job gives back itself
});

test('no free slot is taken while another job waits for one, and none is taken from another run', async () => {
  const slots = new Slots(2);
  slots.tryAcquire({ accountId: 'a', kind: 'async' });
  let waiting = true;
  const schedule = partScheduler({ slots, accountId: 'a', othersWaiting: () => waiting });
  const p = parts();
  const all = Promise.all([0, 1, 2].map((n) => schedule(p.work(n))));
  await flush();
  expect([...p.running]).toEqual([0]); // the free slot is left to the waiting job
  expect(slots.inUse).toBe(1);
  waiting = false;
  // Another account's run holds the last slot: the parts never stop it (tryAcquireFree).
  const other = slots.tryAcquire({ accountId: 'b', kind: 'async', preempt: () => fail('a part stopped another run') });
  expect(other).not.toBeNull();
  p.end(0);
  await flush();
  expect([...p.running]).toEqual([1]);
  other!();
  p.end(1);
  await flush();
  expect([...p.running]).toEqual([2]);
  p.end(2);
  await all;
});

test('a failed part rejects its own promise; the others still run', async () => {
  const slots = new Slots(1);
  const schedule = partScheduler({ slots, accountId: 'a' });
  const failed = schedule(() => Promise.reject(new Error('part 0 failed')));
  const next = schedule(() => Promise.resolve('part 1'));
  await expect(failed).rejects.toThrow('part 0 failed');
  await expect(next).resolves.toBe('part 1');
});
