import { Slots } from '../src/domain/slots.js';

test('slots: capacity, release once', () => {
  const slots = new Slots(2);
  const a = slots.tryAcquire();
  const b = slots.tryAcquire();
  expect(a && b).toBeTruthy();
  expect(slots.tryAcquire()).toBeNull();
  a!();
  a!();
  expect(slots.inUse).toBe(1);
  expect(slots.tryAcquire()).not.toBeNull();
});

// The capacity rule (slots.ts): no account captures the slots, an account alone uses them all.
describe('no account captures the slots', () => {
  const async = (accountId: string, stopped: string[], name: string) => ({
    accountId,
    kind: 'async' as const,
    preempt: () => stopped.push(name),
  });

  test('an account alone takes every slot; another account takes the youngest of its async runs', () => {
    const slots = new Slots(2);
    const stopped: string[] = [];
    expect(slots.tryAcquire(async('x', stopped, 'x1'))).not.toBeNull();
    expect(slots.tryAcquire(async('x', stopped, 'x2'))).not.toBeNull();
    expect(slots.available({ accountId: 'x', kind: 'async' })).toBe(false); // not from itself
    expect(slots.available({ accountId: 'y', kind: 'sync' })).toBe(true);
    expect(stopped).toEqual([]); // asking stops nothing
    expect(slots.tryAcquire({ accountId: 'y', kind: 'sync' })).not.toBeNull();
    expect(stopped).toEqual(['x2']);
    expect([slots.inUse, slots.heldBy('x'), slots.heldBy('y')]).toEqual([2, 1, 1]);
    // Even now: one each, nobody takes from the other, a third account waits.
    expect(slots.tryAcquire(async('x', stopped, 'x3'))).toBeNull();
    expect(slots.tryAcquire({ accountId: 'z', kind: 'sync' })).toBeNull();
    expect(stopped).toEqual(['x2']);
  });

  test('shares even out one slot at a time, from the account holding the most', () => {
    const slots = new Slots(4);
    const stopped: string[] = [];
    for (const n of ['x1', 'x2', 'x3']) slots.tryAcquire(async('x', stopped, n));
    slots.tryAcquire(async('z', stopped, 'z1'));
    expect(slots.tryAcquire(async('y', stopped, 'y1'))).not.toBeNull();
    expect(stopped).toEqual(['x3']);
    // x 2, z 1, y 1: nobody holds two more than y.
    expect(slots.tryAcquire(async('y', stopped, 'y2'))).toBeNull();
  });

  test('sync runs are never stopped; an account holding none then gets one slot beyond the capacity', () => {
    const slots = new Slots(2);
    const x1 = slots.tryAcquire({ accountId: 'x', kind: 'sync' });
    slots.tryAcquire({ accountId: 'x', kind: 'sync' });
    const y = slots.tryAcquire({ accountId: 'y', kind: 'sync' });
    expect(y).not.toBeNull();
    expect(slots.inUse).toBe(3);
    // One beyond at a time; and none for the account that holds them.
    expect(slots.tryAcquire({ accountId: 'z', kind: 'sync' })).toBeNull();
    expect(slots.tryAcquire({ accountId: 'x', kind: 'sync' })).toBeNull();
    y!();
    x1!();
    expect(slots.tryAcquire({ accountId: 'z', kind: 'async' })).not.toBeNull(); // a free slot again
    expect(slots.tryAcquire({ accountId: 'z', kind: 'async' })).toBeNull();
  });

  test('a stopped run releasing its slot later does not free the slot it gave away', () => {
    const slots = new Slots(2);
    slots.tryAcquire(async('x', [], 'x1'));
    const x2 = slots.tryAcquire(async('x', [], 'x2'))!;
    expect(slots.tryAcquire({ accountId: 'y', kind: 'sync' })).not.toBeNull();
    x2(); // the stopped run's own release, when its ffmpeg has exited
    expect(slots.inUse).toBe(2);
    expect(slots.tryAcquire({ accountId: 'z', kind: 'sync' })).toBeNull();
  });

  test('with one slot nothing is stopped: two accounts would take it from each other forever', () => {
    const slots = new Slots(1);
    slots.tryAcquire(async('x', [], 'x1'));
    expect(slots.tryAcquire({ accountId: 'y', kind: 'sync' })).toBeNull();
  });
});

// The worker hears of every slot given back: a sync run's end lifts the hold on the job stopped
// for it and starts a queued job, rather than leaving them to the next scan.
test('onRelease: told once per slot given back, never for a run stopped for another account', () => {
  const slots = new Slots(2);
  const released: string[] = [];
  slots.onRelease = (claim) => released.push(`${claim.accountId}:${claim.kind}`);
  const x1 = slots.tryAcquire({ accountId: 'x', kind: 'async', preempt: () => undefined })!;
  const x2 = slots.tryAcquire({ accountId: 'x', kind: 'async', preempt: () => undefined })!;
  const y = slots.tryAcquire({ accountId: 'y', kind: 'sync' })!; // stops x2
  x2(); // the stopped run's own release: its slot is already y's
  expect(released).toEqual([]);
  y();
  y();
  x1();
  expect(released).toEqual(['y:sync', 'x:async']);
});

test("another account takes a split job's part slot at once; the split job's own run is never stopped", () => {
  const slots = new Slots(2);
  const stopped: string[] = [];
  expect(slots.tryAcquire({ accountId: 'x', kind: 'async', preempt: () => stopped.push('x-job') })).not.toBeNull();
  const part = slots.tryAcquireFree({ accountId: 'x', kind: 'part' });
  expect(part).not.toBeNull();
  expect(slots.tryAcquireFree({ accountId: 'x', kind: 'part' })).toBeNull(); // none free
  expect(slots.available({ accountId: 'x', kind: 'async' })).toBe(false); // not from itself
  // Another account's sync request gets the part's slot; the part runs on (over capacity) to its end.
  expect(slots.available({ accountId: 'y', kind: 'sync' })).toBe(true);
  expect(slots.tryAcquire({ accountId: 'y', kind: 'sync' })).not.toBeNull();
  expect(stopped).toEqual([]);
  expect([slots.inUse, slots.heldBy('x'), slots.heldBy('y')]).toEqual([2, 1, 1]);
  part!(); // the part ends: its slot is already the other account's
  expect(slots.inUse).toBe(2);
  // No part slot left to take: a third account waits, the split job's run is still not stopped.
  expect(slots.tryAcquire({ accountId: 'z', kind: 'async' })).toBeNull();
  expect(stopped).toEqual([]);
});
