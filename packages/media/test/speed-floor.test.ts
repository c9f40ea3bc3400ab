// The processing-speed floor (issue 39): a run whose output media time advances slower than
// FFMPEG_MIN_SPEED over a window from its start, while ffmpeg idles, is ended (also one that
// reports no media time at all); a busy slow encoder and a run at real time are not. Driven by a clock of the test's own.
import { watchSpeedFloor } from '../src/ffmpeg/speed-floor.js';

const WINDOW_MS = 120_000;

/** A watch on a clock the test moves; `cpu` is the process's CPU seconds so far. */
function harness(minSpeed = 0.01) {
  let at = 0;
  let cpu: number | undefined = 0;
  const slow: number[] = [];
  const watch = watchSpeedFloor(
    { minSpeed, windowMs: WINDOW_MS },
    (advanced) => slow.push(advanced),
    () => cpu,
    () => at,
  );
  /** Moves the clock in ticks of a tenth of a window, with media and CPU advancing at these rates. */
  const media = { t: 0 };
  const run = (ms: number, mediaPerSec: number, cpuPerSec: number | undefined) => {
    for (let step = 0; step < ms; step += WINDOW_MS / 10) {
      at += WINDOW_MS / 10;
      media.t += (mediaPerSec * WINDOW_MS) / 10_000;
      cpu = cpuPerSec === undefined ? undefined : (cpu ?? 0) + (cpuPerSec * WINDOW_MS) / 10_000;
      watch.sample(media.t);
      watch.check();
    }
  };
  return { watch, run, slow };
}

test('a run paced at a thousandth of real time, ffmpeg idle, is ended after its window', () => {
  const h = harness();
  h.run(WINDOW_MS - WINDOW_MS / 10, 0.001, 0.01);
  expect(h.slow).toEqual([]); // the grace: a whole window from the start
  h.run(WINDOW_MS / 5, 0.001, 0.01);
  expect(h.slow).toHaveLength(1);
  expect(h.slow[0]).toBeCloseTo(0.12, 5); // 120 s at 0.001x
  h.watch.stop();
});

test('a run that stops reporting after its first media time is ended', () => {
  const h = harness();
  h.run(WINDOW_MS / 10, 1, 0);
  h.run(WINDOW_MS * 2, 0, 0); // the same media time, again and again

  expect(h.slow).toHaveLength(1);
  h.watch.stop();
});

test('not ended: a busy slow encoder, a run at real time, a busy run reporting no media time yet', () => {
  const busy = harness();
  busy.run(WINDOW_MS * 5, 0.001, 0.9); // libaom-av1 at 4K: far under the floor, but working
  expect(busy.slow).toEqual([]);
  const realTime = harness();
  realTime.run(WINDOW_MS * 5, 1, 0.02); // -re: idle, but at 1x
  expect(realTime.slow).toEqual([]);
  const noMediaTime = harness();
  noMediaTime.run(WINDOW_MS * 5, 0, 0.9); // reverse decoding its input: media time comes at the end
  expect(noMediaTime.slow).toEqual([]);
  const unknown = harness();
  unknown.run(WINDOW_MS * 5, 0, undefined); // no media time and no CPU figure: not judged blind
  expect(unknown.slow).toEqual([]);
  for (const h of [busy, realTime, noMediaTime, unknown]) h.watch.stop();
});

test('ended: an idle run that reports no media time at all (every frame dropped, the read paced)', () => {
  const idle = harness();
  idle.run(WINDOW_MS * 2, 0, 0.01);
  expect(idle.slow).toEqual([0]);
  idle.watch.stop();
});

test('without CPU figures the media time alone decides; 0 turns the floor off', () => {
  const unknownCpu = harness();
  unknownCpu.run(WINDOW_MS * 2, 0.001, undefined);
  expect(unknownCpu.slow).toHaveLength(1);
  const off = harness(0);
  off.run(WINDOW_MS * 5, 0.0001, 0);
  expect(off.slow).toEqual([]);
});
