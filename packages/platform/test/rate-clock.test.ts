import { shiftableRateClock, WINDOW_MS, windowOf } from '../src/rate-window.js';

test('freshWindow moves the clock forward to the start of the next window, never back', () => {
  const clock = shiftableRateClock();
  const before = clock.now();
  clock.freshWindow();
  const after = clock.now();
  expect(windowOf(after)).toBe(windowOf(before) + 1);
  // The real time since freshWindow, only: the new window has nearly all of its minute left.
  expect(after % WINDOW_MS).toBeLessThan(after - before);
  clock.freshWindow();
  expect(windowOf(clock.now())).toBe(windowOf(after) + 1);
});
