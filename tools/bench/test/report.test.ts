// The arithmetic behind every reported figure: medians, and the table a reader compares.
import { markdownTable } from '../src/lib/report.js';
import { median } from '../src/lib/stats.js';
import { mkdtemp, readFile, rm, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { interleave, loopsAtOnce } from '../src/lib/timing.js';

test('median of odd and even sample counts, whatever their order', () => {
  expect(median([5, 1, 3])).toBe(3);
  expect(median([4, 1, 3, 2])).toBe(2.5);
  expect(() => median([])).toThrow('median of no samples');
});

test('a missed target is marked in the table', () => {
  const table = markdownTable([
    { benchmark: 'a', baseline: '1 ms', service: '2 ms', figure: '2.000x', target: '<= 1.03x', met: false },
    { benchmark: 'b', baseline: '1 ms', service: '1 ms', figure: '1.000x', target: '<= 1.03x', met: true },
  ]);
  expect(table.split('\n')).toEqual([
    '| benchmark | baseline | service | figure | target | met |',
    '|---|---|---|---|---|---|',
    '| a | 1 ms | 2 ms | 2.000x | <= 1.03x | **no** |',
    '| b | 1 ms | 1 ms | 1.000x | <= 1.03x | yes |',
  ]);
});

test('interleaved rounds alternate which side goes first, after one warm-up of each', async () => {
  const order: string[] = [];
  const side = (name: string, value: number) => async () => {
    order.push(name);
    return value;
  };
  const s = await interleave(3, side('b', 1), side('s', 2));
  expect(order).toEqual(['b', 's', 'b', 's', 's', 'b', 'b', 's']);
  expect(s).toEqual({ baseline: [1, 1, 1], service: [2, 2, 2] });
});

test('loops at once run the command the given number of times in each directory, side by side', async () => {
  const root = await mkdtemp(join(tmpdir(), 'bench-loops-'));
  try {
    const dirs = [join(root, 'a'), join(root, 'b')];
    for (const d of dirs) await mkdir(d);
    // Each run counts itself, marks its directory and waits (up to 2 s) until every directory is
    // marked: run one loop after the other, the first run would wait in vain and fail.
    const script =
      'echo x >> runs; touch here; for d in ../*/; do i=0; until [ -e "$d/here" ]; do i=$((i+1)); [ $i -gt 200 ] && exit 1; sleep 0.01; done; done';
    const wall = await loopsAtOnce(3, 'sh', ['-c', script], dirs);
    for (const d of dirs) expect((await readFile(join(d, 'runs'), 'utf8')).split('\n').filter(Boolean)).toHaveLength(3);
    expect(wall).toBeGreaterThan(0);
  } finally {
    await rm(root, { recursive: true, force: true });
  }
});
