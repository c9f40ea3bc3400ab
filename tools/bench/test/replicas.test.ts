// The replica benchmarks' arithmetic: the steady job rate from end times, and the CPU split of a
// span (percent of one core per process, the machine's busy share, what other work took).
import { cpuSpan, type CpuSnapshot } from '../src/lib/cluster.js';
import { steadyRate } from '../src/lib/stats.js';

test('steadyRate counts the jobs between the first wave and the last, over that time', () => {
  // 2 slots, 3 s a job, waves end at 3, 6, 9, 12 s; the first and last waves are left out.
  const ends = [3000, 3010, 6000, 6010, 9000, 9010, 12000, 12010].reverse();
  expect(steadyRate(ends, 2)).toBeCloseTo(4 / 6, 2);
  // A slow first wave (start-up) does not change it.
  expect(steadyRate([5000, 5000, 8000, 8000, 11000, 11000, 14000, 14000], 2)).toBeCloseTo(4 / 6, 5);
  expect(() => steadyRate([1, 2, 3, 4, 5], 2)).toThrow('at least three waves');
});

test('cpuSpan: percent of one core per process, the machine, and the rest as other processes', () => {
  const a: CpuSnapshot = {
    at: 0,
    byName: new Map([
      ['gateway-1', 1000],
      ['bench', 500],
    ]),
    busyMs: 10_000,
    totalMs: 40_000,
  };
  // 2 s on 2 cores: 4,000 ms of CPU time, 3,000 busy; the gateway used 1,200 ms, the bench 400.
  const b: CpuSnapshot = {
    at: 2000,
    byName: new Map([
      ['gateway-1', 2200],
      ['bench', 900],
      ['jobs-2', 50],
    ]),
    busyMs: 13_000,
    totalMs: 44_000,
  };
  const span = cpuSpan(a, b);
  expect(span.percentOf('gateway-1')).toBeCloseTo(60);
  expect(span.percentOf('bench')).toBeCloseTo(20);
  expect(span.percentOf('jobs-2')).toBe(0); // started during the span: not counted
  expect(span.text).toBe('gateway-1 60%, bench 20%; machine 150% of 200% (other processes 70%)');
});
