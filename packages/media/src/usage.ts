// The spec's pricing rule: gb_sec = (input_size_gb + output_size_gb) x time_sec, USD 0.01332 per
// GB-second. Sizes in GB are bytes / 1e9 (exact to the byte); time_sec is the measured processing
// time rounded to the millisecond; gb_sec and amount_usd are rounded to 9 decimal places, each
// computed from the already-rounded figures so anyone can recompute them from the response.
export const USD_PER_GB_SEC = 0.01332;

export interface UsageFigures {
  timeSec: number;
  inputSizeGb: number;
  outputSizeGb: number;
  gbSec: number;
}

const round = (n: number, digits: number) => Number(n.toFixed(digits));

export function computeUsage(inputBytes: number, outputBytes: number, durationMs: number): { usage: UsageFigures; amountUsd: number } {
  const timeSec = round(durationMs / 1000, 3);
  const inputSizeGb = inputBytes / 1e9;
  const outputSizeGb = outputBytes / 1e9;
  const gbSec = round((inputSizeGb + outputSizeGb) * timeSec, 9);
  return { usage: { timeSec, inputSizeGb, outputSizeGb, gbSec }, amountUsd: round(gbSec * USD_PER_GB_SEC, 9) };
}
