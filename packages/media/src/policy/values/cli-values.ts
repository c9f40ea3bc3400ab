// Values as ffmpeg's own options and AVOptions of sizes, rates and durations read them
// (fftools/cmdutils.c parse_number_or_die and parse_time_or_die; libavutil/parseutils.c).
import { evaluate } from './expr.js';
import { NAMED_RATES, NAMED_SIZES } from './names.js';
import { strtodWhole } from './strtod.js';

/** parse_number_or_die: an av_strtod number, the whole text (48k, 1e3, 0x10); no expression. */
export function parseCliNumber(text: string): number | undefined {
  return strtodWhole(text);
}

/**
 * av_parse_time as a duration, in seconds: [-][HH:]MM:SS[.m...] or [-]S+[.m...][s|ms|us]
 * (microsecond precision, as FFmpeg keeps it).
 */
export function parseCliTime(text: string): number | undefined {
  const m = /^(-?)(?:(?:(\d+):)?([0-5]?\d):([0-5]?\d)|(\d+))(?:\.(\d*))?(s|ms|us)?$/.exec(text.trim());
  if (!m) return undefined;
  const whole = m[5] !== undefined ? Number(m[5]) : Number(m[2] ?? 0) * 3600 + Number(m[3]) * 60 + Number(m[4]);
  const frac = m[6] ? Number(`0.${m[6].slice(0, 6)}`) : 0;
  let seconds = whole + frac;
  // ms and us apply to the S+ form; FFmpeg applies them to either, so do we.
  if (m[7] === 'ms') seconds /= 1000;
  else if (m[7] === 'us') seconds = whole / 1e6;
  return m[1] === '-' ? -seconds : seconds;
}

/** av_parse_video_size: a size name (hd720) or W<any one character>H. */
export function parseVideoSize(text: string): readonly [number, number] | undefined {
  if (Object.hasOwn(NAMED_SIZES, text)) return NAMED_SIZES[text];
  // strtol, one separator character skipped, strtol, nothing after.
  const m = /^\s*([+-]?\d+)(?:[^\d]\s*([+-]?\d+))?$/.exec(text);
  if (!m || m[2] === undefined) return undefined;
  const w = Number(m[1]);
  const h = Number(m[2]);
  return w > 0 && h > 0 ? [w, h] : undefined;
}

/** av_parse_video_rate: a rate name (ntsc), num:den, or an expression (30000/1001, 29.97); above 0. */
export function parseVideoRate(text: string): number | undefined {
  if (Object.hasOwn(NAMED_RATES, text)) {
    const [n, d] = NAMED_RATES[text]!;
    return n / d;
  }
  const ratio = /^\s*([+-]?\d+):([+-]?\d+)$/.exec(text);
  if (ratio) {
    const r = Number(ratio[1]) / Number(ratio[2]);
    return r > 0 && Number.isFinite(r) ? r : undefined;
  }
  const r = evaluate(text);
  return 'value' in r && r.value > 0 && Number.isFinite(r.value) ? r.value : undefined;
}
