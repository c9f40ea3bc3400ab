// The Usage page's chart: a month's GB-seconds per day as bars in HTML and CSS (no script), each
// bar stacked by key, with a legend; every bar's title gives the day's GB-seconds and USD. The
// five keys that used most get colours of their own, the rest are one "other keys" series.
import { amount, html, type Html } from './html.js';

export interface DayFigures {
  gbSec: number;
  usd: number;
  /** GB-seconds per key id. */
  byKey: Map<string, number>;
}

const COLOURED = 5;
export const OTHER_KEYS = 'Other keys';

export function usageChart(month: string, days: DayFigures[], keyName: (keyId: string) => string): Html {
  const totals = new Map<string, number>();
  for (const d of days) for (const [k, v] of d.byKey) totals.set(k, (totals.get(k) ?? 0) + v);
  const ranked = [...totals].sort((a, b) => b[1] - a[1]).map(([k]) => k);
  const coloured = ranked.slice(0, COLOURED);
  const series = (keyId: string) => (coloured.includes(keyId) ? coloured.indexOf(keyId) : COLOURED);
  const legend: [number, string][] = coloured.map((k, i) => [i, keyName(k)]);
  if (ranked.length > COLOURED) legend.push([COLOURED, OTHER_KEYS]);
  const peak = Math.max(...days.map((d) => d.gbSec), 0);
  const day = (i: number) => `${month}-${String(i + 1).padStart(2, '0')}`;
  const bar = (d: DayFigures, i: number) => {
    const parts = new Array<number>(COLOURED + 1).fill(0);
    for (const [k, v] of d.byKey) parts[series(k)]! += v;
    const height = peak ? ((100 * d.gbSec) / peak).toFixed(1) : '0';
    return html`<span class="bar" title="${day(i)}: ${amount(d.gbSec)} GB-s, $${amount(d.usd)}" style="height:${height}%">${parts.map(
      (v, s) =>
        v > 0 && d.gbSec > 0 ? html`<span class="seg s${s}" data-series="${s}" style="flex-grow:${(v / d.gbSec).toFixed(4)}"></span>` : '',
    )}</span>`;
  };
  return html`<figure>
    <div class="chart" role="img" aria-label="GB-seconds per day in ${month}, by key (the tables below give the figures)">${days.map(bar)}</div>
    <figcaption class="muted">GB-seconds per day, ${day(0)} to ${day(days.length - 1)}; hover a bar for its day's GB-seconds and USD.</figcaption>
    <ul class="legend">${legend.map(([s, name]) => html`<li><span class="swatch s${s}" aria-hidden="true"></span>${name}</li>`)}</ul>
  </figure>`;
}
