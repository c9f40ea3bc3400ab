// One row per target of the benchmark issue; printed as a Markdown table and written to docs.

export interface Row {
  benchmark: string;
  /** The baseline's figure, e.g. "2051 ms (bare ffmpeg)". */
  baseline: string;
  /** The service's figure, same unit. */
  service: string;
  /** The compared figure: a ratio or a difference. */
  figure: string;
  target: string;
  met: boolean;
}

export interface Context {
  /** Rounds per side for the timed benchmarks (medians are reported). */
  runs: number;
  /** Scratch space on the same disk as the service's data. */
  workDir: string;
  log: (line: string) => void;
}

export function markdownTable(rows: Row[]): string {
  const lines = ['| benchmark | baseline | service | figure | target | met |', '|---|---|---|---|---|---|'];
  for (const r of rows)
    lines.push(`| ${r.benchmark} | ${r.baseline} | ${r.service} | ${r.figure} | ${r.target} | ${r.met ? 'yes' : '**no**'} |`);
  return lines.join('\n');
}
