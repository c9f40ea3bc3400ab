// A run must make headway: its output's media time (ffmpeg's progress out_time) must advance at a
// least speed, measured over a window from the run's start, like the bytes-a-second floor of URL
// inputs. A run that is paced or stalled while ffmpeg idles (timestamps squeezed by setpts under
// -re, every frame dropped by select while the read is paced) then ends within minutes instead of
// holding its worker slot until the job time limit. Never ended by it: a run that keeps the CPU
// busy (a slow encoder working, an output whose first frame comes only at the end, as reverse
// makes it, however slow its media time), and, where the CPU time cannot be read, a run that has
// reported no media time yet.
import { readFileSync } from 'node:fs';
import { env } from '@media/platform';

export interface SpeedFloor {
  /** Least media seconds per wall second (0: no floor). */
  minSpeed: number;
  /** The window the speed is measured over, and the grace after the first media time. */
  windowMs: number;
}

/**
 * A run below the floor that keeps a tenth of a core busy is working, not paced: a slow encoder
 * (libaom-av1 at 4K, a first frame after a long lookahead) is never ended by the floor.
 */
export const BUSY_CPU_SHARE = 0.1;

export interface SpeedFloorWatch {
  /** Feeds one progress report (its output media time, in seconds). */
  sample(outTimeSec: number): void;
  /** Measures now (the watch's timer calls it every tenth of a window). */
  check(): void;
  stop(): void;
}

/**
 * Calls `onSlow` once, with the media seconds the last window brought, when they are fewer than
 * minSpeed x window and the process used less than BUSY_CPU_SHARE of a core over that window
 * (`cpuSec` gives its CPU seconds so far; undefined when unknown, then the media time alone
 * decides). Checked every tenth of a window, and so also when ffmpeg stops reporting.
 */
export function watchSpeedFloor(
  floor: SpeedFloor,
  onSlow: (advancedSec: number) => void,
  cpuSec: () => number | undefined = () => undefined,
  now: () => number = Date.now,
): SpeedFloorWatch {
  if (!(floor.minSpeed > 0) || !(floor.windowMs > 0)) return { sample: () => undefined, check: () => undefined, stop: () => undefined };
  // Media time and CPU time by wall time, oldest first; only what the window still needs is kept.
  // The window starts at spawn, media time 0: a paced or stalled run that never reports media
  // time (every frame dropped by `select`, say) is measured too, not left to the time limit.
  const firstAt = now();
  const samples: Array<{ at: number; t: number }> = [{ at: firstAt, t: 0 }];
  const cpu: Array<{ at: number; sec: number | undefined }> = [{ at: firstAt, sec: cpuSec() }];
  let mediaSeen = false;
  let ended = false;
  const timer = setInterval(check, Math.max(10, floor.windowMs / 10));
  timer.unref();

  const trim = <T extends { at: number }>(list: T[], cutoff: number) => {
    while (list.length > 1 && list[1]!.at <= cutoff) list.shift();
  };

  function check(): void {
    if (ended) return;
    const at = now();
    cpu.push({ at, sec: cpuSec() });
    if (at - firstAt < floor.windowMs) return;
    const cutoff = at - floor.windowMs;
    trim(samples, cutoff);
    trim(cpu, cutoff);
    const advanced = samples[samples.length - 1]!.t - samples[0]!.t;
    if (advanced >= (floor.minSpeed * floor.windowMs) / 1000) return;
    const [from, to] = [cpu[0]!, cpu[cpu.length - 1]!];
    const busy = from.at <= cutoff && from.sec !== undefined && to.sec !== undefined ? to.sec - from.sec : undefined;
    if (busy !== undefined && busy >= (BUSY_CPU_SHARE * floor.windowMs) / 1000) return;
    // No media time yet and no CPU figure: it may be an encoder's lookahead; not judged blind.
    if (busy === undefined && !mediaSeen) return;
    ended = true;
    clearInterval(timer);
    onSlow(Math.max(0, advanced));
  }

  return {
    sample(outTimeSec) {
      if (!(outTimeSec > 0)) return;
      mediaSeen = true;
      samples.push({ at: now(), t: outTimeSec });
    },
    check,
    stop: () => {
      ended = true;
      clearInterval(timer);
    },
  };
}

/** CPU seconds (user + system, every thread) a Linux process has used, or undefined. */
export function processCpuSec(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    // Fields after the command name (which may hold spaces): utime and stime are the 12th and 13th.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]);
    return Number.isFinite(ticks) ? ticks / USER_HZ : undefined;
  } catch {
    return undefined;
  }
}

/** The clock tick of /proc times: USER_HZ is 100 on every Linux architecture Node runs on. */
const USER_HZ = 100;

/** Defaults: see docs/operations/configuration.md for the slow encodes they were measured against. */
export const DEFAULT_MIN_SPEED = 0.01;
export const DEFAULT_SPEED_WINDOW_SEC = 120;

/** Jobs' settings of the floor, checked with the rest of its configuration. */
export const speedFloorConfig = {
  /** A run's output media time must advance at least this fast (media seconds a second; 0: no floor). */
  FFMPEG_MIN_SPEED: env.checked((raw) => {
    const n = raw === undefined ? DEFAULT_MIN_SPEED : Number(raw);
    if (raw !== undefined && (raw.trim() === '' || !Number.isFinite(n) || n < 0 || n > 100)) throw new Error(`got '${raw}'`);
    return n;
  }, 'a number from 0 to 100, such as 0.01'),
  /** The window that speed is measured over, and the grace after a run's first media time. */
  FFMPEG_SPEED_WINDOW_SEC: env.int(DEFAULT_SPEED_WINDOW_SEC, 10, 86_400),
};
