// Parses ffmpeg's `-progress pipe:1` output: blocks of key=value lines, each ending with
// `progress=continue` or `progress=end`.

export interface FfmpegProgress {
  /** Output timestamp reached, in seconds. */
  outTimeSec: number;
  /** Frames per second being processed (0 when ffmpeg does not know yet, or audio only). */
  fps: number;
  /** Processing speed as a multiple of real time (0 when unknown). */
  speed: number;
  /** Frames written so far (0 for audio-only outputs). */
  frame: number;
  /** 0..100, when the input duration is known; 100 on the final report. */
  percent?: number;
  /** Estimated seconds left, when duration and speed are known; 0 on the final report. */
  etaSec?: number;
  /** True for the final report (`progress=end`). */
  done: boolean;
}

export interface ProgressParserOptions {
  /** Expected output duration: makes percent and ETA possible. */
  durationSec?: number;
  /** Reports closer together than this are dropped (the final one never is). Default 1000 ms. */
  intervalMs?: number;
  onProgress: (p: FfmpegProgress) => void;
  now?: () => number;
}

/** Returns a function to feed stdout chunks into. */
export function createProgressParser(opts: ProgressParserOptions): (chunk: Buffer | string) => void {
  const intervalMs = opts.intervalMs ?? 1000;
  const now = opts.now ?? Date.now;
  let partial = '';
  let block = new Map<string, string>();
  let lastEmit = -Infinity;

  const finishBlock = (state: string) => {
    const done = state === 'end';
    const at = now();
    if (done || at - lastEmit >= intervalMs) {
      lastEmit = at;
      const p = toProgress(block, done, opts.durationSec);
      try {
        opts.onProgress(p);
      } catch {
        // A failing listener must not break the run.
      }
    }
    block = new Map();
  };

  return (chunk) => {
    const lines = (partial + chunk.toString()).split('\n');
    partial = lines.pop() ?? '';
    if (partial.length > 4096) partial = ''; // not progress output: do not grow without bound
    for (const raw of lines) {
      const eq = raw.indexOf('=');
      if (eq <= 0) continue;
      const key = raw.slice(0, eq).trim();
      const value = raw.slice(eq + 1).trim();
      if (key === 'progress') finishBlock(value);
      else block.set(key, value);
    }
  };
}

function toProgress(block: Map<string, string>, done: boolean, durationSec?: number): FfmpegProgress {
  const outTimeSec = Math.max(0, outTime(block) ?? 0);
  const fps = num(block.get('fps')) ?? 0;
  const speed = num(block.get('speed')?.replace(/x$/, '')) ?? 0;
  const frame = Math.trunc(num(block.get('frame')) ?? 0);
  const p: FfmpegProgress = { outTimeSec: round(outTimeSec, 3), fps, speed, frame, done };
  if (durationSec !== undefined && durationSec > 0) {
    p.percent = done ? 100 : round(Math.min(100, (outTimeSec / durationSec) * 100), 1);
    if (done) p.etaSec = 0;
    else if (speed > 0) p.etaSec = round(Math.max(0, durationSec - outTimeSec) / speed, 1);
  }
  return p;
}

/** Seconds from out_time_us, else out_time_ms (also microseconds, despite the name), else out_time. */
function outTime(block: Map<string, string>): number | undefined {
  const us = num(block.get('out_time_us')) ?? num(block.get('out_time_ms'));
  if (us !== undefined) return us / 1e6;
  const hms = /^(-?)(\d+):(\d{2}):(\d{2}(?:\.\d+)?)$/.exec(block.get('out_time') ?? '');
  if (!hms) return undefined;
  const sec = Number(hms[2]) * 3600 + Number(hms[3]) * 60 + Number(hms[4]);
  return hms[1] ? -sec : sec;
}

function num(value: string | undefined): number | undefined {
  if (value === undefined || value === '' || value === 'N/A') return undefined;
  const n = Number(value);
  return Number.isFinite(n) ? n : undefined;
}

function round(n: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(n * f) / f;
}
