// The Usage page's chart: bars stacked by key in the legend's colours, the five biggest keys
// named and the rest one "other keys" series, each bar titled with its day's GB-s and USD.
import { usageChart, type DayFigures } from '../src/usage-chart.js';

const day = (byKey: Record<string, number>, usd: number): DayFigures => {
  const m = new Map(Object.entries(byKey));
  return { gbSec: [...m.values()].reduce((a, b) => a + b, 0), usd, byKey: m };
};
const segs = (html: string) => [...html.matchAll(/data-series="(\d)" style="flex-grow:([\d.]+)"/g)].map((m) => [m[1], m[2]]);

test('bars are stacked by key, the five biggest keys named, the rest one series', () => {
  const days = [day({ k1: 6, k2: 2 }, 0.5), day({}, 0), day({ k3: 1, k4: 1, k5: 1, k6: 0.5, k7: 0.5 }, 0.25)];
  const names: Record<string, string> = { k1: 'laptop', k2: '<script>', k3: 'ci', k4: 'cron', k5: 'web', k6: 'old', k7: 'test' };
  const out = usageChart('2026-11', days, (id) => names[id]!).text;
  // The legend: the five biggest by the month's GB-s (names escaped), then the rest together.
  const legend = [...out.matchAll(/<li><span class="swatch s(\d)" aria-hidden="true"><\/span>([^<]*)<\/li>/g)].map((m) => [m[1], m[2]]);
  expect(legend).toEqual([
    ['0', 'laptop'],
    ['1', '&lt;script&gt;'],
    ['2', 'ci'],
    ['3', 'cron'],
    ['4', 'web'],
    ['5', 'Other keys'],
  ]);
  // One bar a day: its title (GB-s and USD), its height relative to the biggest day, its segments.
  const bars = out
    .split('<span class="bar" ')
    .slice(1)
    .map((b) => ({ title: /^title="([^"]*)"/.exec(b)![1], height: /style="height:([\d.]+)%"/.exec(b)![1], body: b }));
  expect(bars.map((b) => [b.title, b.height])).toEqual([
    ['2026-11-01: 8 GB-s, $0.5', '100.0'],
    ['2026-11-02: 0 GB-s, $0', '0.0'],
    ['2026-11-03: 4 GB-s, $0.25', '50.0'],
  ]);
  // Each key's share of its day; k6 and k7 together as the sixth series; none on an empty day.
  expect(segs(bars[0]!.body)).toEqual([
    ['0', '0.7500'],
    ['1', '0.2500'],
  ]);
  expect(segs(bars[1]!.body)).toEqual([]);
  expect(segs(bars[2]!.body)).toEqual([
    ['2', '0.2500'],
    ['3', '0.2500'],
    ['4', '0.2500'],
    ['5', '0.2500'],
  ]);
});
