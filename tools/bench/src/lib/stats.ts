// Small statistics for benchmark samples: medians, and figures formatted for the report.

export function median(xs: number[]): number {
  if (xs.length === 0) throw new Error('median of no samples');
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

export const ms = (x: number) => `${x.toFixed(x < 100 ? 1 : 0)} ms`;
export const ratio = (x: number) => `${x.toFixed(3)}x`;
export const mbps = (bytesPerSec: number) => `${(bytesPerSec / 1e6).toFixed(0)} MB/s`;
export const perSec = (x: number) => `${x.toFixed(x < 100 ? 1 : 0)}/s`;

/**
 * Jobs/s while every slot was busy, from the jobs' end times (ms, any order): the jobs that ended
 * after the first wave (the first `slots` to end) up to the start of the last wave (the last
 * `slots`), over that time. Waves of equal jobs keep their shape, so whole waves are counted.
 */
export function steadyRate(ends: number[], slots: number): number {
  const n = ends.length;
  if (n < 3 * slots) throw new Error(`${n} jobs for ${slots} slots: at least three waves needed`);
  const sorted = [...ends].sort((a, b) => a - b);
  return (n - 2 * slots) / ((sorted[n - slots - 1]! - sorted[slots - 1]!) / 1000);
}
