import { computeUsage, USD_PER_GB_SEC } from '../src/usage.js';

test('gb_sec = (in + out) x time; amount = gb_sec x 0.01332; rounding documented', () => {
  const { usage, amountUsd } = computeUsage(2_000_000_000, 500_000_000, 4000);
  expect(usage).toEqual({ timeSec: 4, inputSizeGb: 2, outputSizeGb: 0.5, gbSec: 10 });
  expect(amountUsd).toBeCloseTo(10 * USD_PER_GB_SEC, 12);
  const small = computeUsage(1_234_567, 89, 1234.5678);
  expect(small.usage.timeSec).toBe(1.235);
  expect(small.usage.inputSizeGb).toBe(0.001234567);
  expect(small.usage.gbSec).toBe(Number(((0.001234567 + 0.000000089) * 1.235).toFixed(9)));
  expect(small.amountUsd).toBe(Number((small.usage.gbSec * 0.01332).toFixed(9)));
});
