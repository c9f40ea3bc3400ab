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
