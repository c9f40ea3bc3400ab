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
