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

test('waiters get freed slots first come, first served, before any tryAcquire', async () => {
  const slots = new Slots(1);
  const first = slots.tryAcquire()!;
  const order: string[] = [];
  const a = slots.acquire().then((release) => (order.push('a'), release));
  const b = slots.acquire().then((release) => (order.push('b'), release));
  // A sync request arriving while async jobs wait gets no slot (it is answered 503).
  expect(slots.tryAcquire()).toBeNull();
  first();
  const releaseA = await a;
  expect(order).toEqual(['a']);
  expect(slots.tryAcquire()).toBeNull(); // handed to b's turn, not freed
  releaseA();
  releaseA(); // twice is once
  (await b)();
  expect(order).toEqual(['a', 'b']);
  expect(slots.inUse).toBe(0);
  expect(slots.tryAcquire()).not.toBeNull();
});

test('an aborted wait leaves the queue and rejects with the reason', async () => {
  const slots = new Slots(1);
  const first = slots.tryAcquire()!;
  const abort = new AbortController();
  const gone = slots.acquire(abort.signal);
  const next = slots.acquire();
  abort.abort(new Error('stopping'));
  await expect(gone).rejects.toThrow('stopping');
  first();
  (await next)(); // the slot went to the waiter behind the aborted one
  expect(slots.inUse).toBe(0);
  await expect(slots.acquire(abort.signal)).resolves.toBeInstanceOf(Function); // free: no wait, no abort check needed
});
