// Sums of stored amounts without float noise: each value (at most 9 decimals, as charged) is
// added as an integer count of billionths, exactly, then divided once. The result is the number
// closest to the exact decimal sum, whatever order the rows come in.
const SCALE = 1_000_000_000n;

/** The exact sum, in billionths. */
export function nanosOf(values: Iterable<number>): bigint {
  let total = 0n;
  for (const v of values) total += BigInt(Math.round(v * 1e9));
  return total;
}

/** Billionths as the number closest to their exact decimal value. */
export function fromNanos(total: bigint): number {
  // Integer and fractional parts apart, so totals beyond 2^53 billionths stay exact too.
  const whole = total / SCALE;
  const frac = total % SCALE;
  return Number(`${whole}.${frac.toString().padStart(9, '0')}`);
}
