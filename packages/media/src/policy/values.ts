// Value kinds of command-line options and the checks for each. A check returns null when the value
// is acceptable, or the end of a sentence saying what is expected ("must be an integer from 1 to 16").
import { LIMITS } from './limits.js';
import { NAMED_RATES, NAMED_SIZES } from './media-names.js';

export type ValueRule =
  | { type: 'int'; min: number; max: number }
  | { type: 'number'; min: number; max: number }
  /** Seconds as [HH:]MM:SS[.frac] or N[.frac][s|ms|us]; never negative. */
  | { type: 'duration'; min: number; max: number }
  | { type: 'size'; max: number }
  | { type: 'rate'; max: number }
  /** Bits per second: 128k, 2.5M, 800000. */
  | { type: 'bitrate'; max: number }
  /** Bytes: 10M, 500000000. */
  | { type: 'bytes'; max: number }
  | { type: 'enum'; values: readonly string[] }
  | { type: 'enum_or_int'; values: readonly string[]; min: number; max: number }
  /** Flag set: +faststart, +frag_keyframe+empty_moov, -global_header. */
  | { type: 'flags'; values: readonly string[] }
  /** Comma-separated names (bitstream filters). */
  | { type: 'list'; values: readonly string[] }
  /** Text matching a regular expression (fourcc tags, timecodes, levels). */
  | { type: 'pattern'; regex: string; expected: string }
  | { type: 'codec' }
  | { type: 'muxer' }
  | { type: 'map' }
  | { type: 'map_metadata' }
  | { type: 'map_chapters' }
  | { type: 'metadata' }
  | { type: 'filtergraph'; graph: 'simple' | 'complex' };

const INT = /^-?\d{1,12}$/;
const NUMBER = /^-?(?:\d{1,12}(?:\.\d{1,12})?|\.\d{1,12})$/;

export function intProblem(v: string, min: number, max: number): string | null {
  const ok = INT.test(v) && Number(v) >= min && Number(v) <= max;
  return ok ? null : `must be an integer from ${min} to ${max}`;
}

export function numberProblem(v: string, min: number, max: number): string | null {
  const ok = NUMBER.test(v) && Number(v) >= min && Number(v) <= max;
  return ok ? null : `must be a number from ${min} to ${max}`;
}

/** Seconds of a duration, or NaN when it is not one of ffmpeg's duration spellings. */
export function parseDuration(v: string): number {
  let m = /^(?:(\d{1,3}):)?([0-5]?\d):([0-5]?\d(?:\.\d{1,9})?)$/.exec(v);
  if (m) return Number(m[1] ?? 0) * 3600 + Number(m[2]) * 60 + Number(m[3]);
  m = /^(\d{1,9}(?:\.\d{1,9})?|\.\d{1,9})(s|ms|us)?$/.exec(v);
  if (m) return Number(m[1]) / (m[2] === 'ms' ? 1e3 : m[2] === 'us' ? 1e6 : 1);
  return NaN;
}

export function durationProblem(v: string, min: number, max: number): string | null {
  const s = parseDuration(v);
  const shape = 'a duration such as 00:01:30.5, 90 or 500ms';
  if (Number.isNaN(s)) return `must be ${shape}`;
  if (s < min || s > max) return `must be ${min > 0 ? 'more than 0' : 'at least 0'} and at most ${max} seconds`;
  if (min > 0 && s === 0) return 'must be more than 0 seconds';
  return null;
}

/** [width, height] of WxH or a size name, or undefined. */
export function parseSize(v: string): readonly [number, number] | undefined {
  const m = /^(\d{1,6})x(\d{1,6})$/.exec(v);
  if (m) return [Number(m[1]), Number(m[2])];
  return Object.hasOwn(NAMED_SIZES, v) ? NAMED_SIZES[v] : undefined;
}

export function sizeProblem(v: string, max: number): string | null {
  const s = parseSize(v);
  if (!s) return 'must be a size such as 1280x720 or a size name such as hd720';
  if (s[0] < 1 || s[1] < 1 || s[0] > max || s[1] > max) return `must be at most ${max}x${max}`;
  return null;
}

/** Frames per second of a rate (25, 29.97, 30000/1001, ntsc), or NaN. */
export function parseRate(v: string): number {
  if (Object.hasOwn(NAMED_RATES, v)) return NAMED_RATES[v]!;
  let m = /^(\d{1,6}(?:\.\d{1,6})?|\.\d{1,6})$/.exec(v);
  if (m) return Number(m[1]);
  m = /^(\d{1,6})\/(\d{1,6})$/.exec(v);
  if (m && Number(m[2]) > 0) return Number(m[1]) / Number(m[2]);
  return NaN;
}

export function rateProblem(v: string, max: number = LIMITS.maxFrameRate): string | null {
  const r = parseRate(v);
  if (Number.isNaN(r)) return 'must be a frame rate such as 30, 29.97, 30000/1001 or ntsc';
  if (!(r > 0 && r <= max)) return `must be more than 0 and at most ${max} frames per second`;
  return null;
}

const SI: Readonly<Record<string, number>> = { '': 1, k: 1e3, K: 1e3, M: 1e6, G: 1e9 };

/** A number with an optional k/K/M/G suffix (ffmpeg's SI prefixes), or NaN. */
export function parseSiNumber(v: string): number {
  const m = /^(\d{1,12}(?:\.\d{1,9})?)([kKMG]?)$/.exec(v);
  return m ? Number(m[1]) * SI[m[2]!]! : NaN;
}

export function bitrateProblem(v: string, max: number): string | null {
  const n = parseSiNumber(v);
  if (Number.isNaN(n)) return 'must be a bitrate such as 128k, 2.5M or 800000';
  return n <= max ? null : `must be at most ${max} bits per second`;
}

export function bytesProblem(v: string, max: number): string | null {
  const n = parseSiNumber(v);
  if (Number.isNaN(n)) return 'must be a size in bytes such as 10M or 500000000';
  return n <= max ? null : `must be at most ${max} bytes`;
}

const listOf = (values: readonly string[], max = 12) =>
  values.length <= max ? values.join(', ') : `${values.slice(0, max).join(', ')}, ... (see the policy)`;

export function enumProblem(v: string, values: readonly string[]): string | null {
  return values.includes(v) ? null : `must be one of ${listOf(values)}`;
}

export function flagsProblem(v: string, values: readonly string[]): string | null {
  const m = /^[+-]?([A-Za-z0-9_]+)((?:[+-][A-Za-z0-9_]+)*)$/.exec(v);
  const names = m ? v.split(/[+-]/).filter(Boolean) : [];
  if (!m || names.some((n) => !values.includes(n))) return `must be flags joined with + or - from ${listOf(values)}`;
  return null;
}

export function listProblem(v: string, values: readonly string[]): string | null {
  const names = v.split(',');
  return names.every((n) => values.includes(n)) ? null : `must be a comma-separated list of ${listOf(values)}`;
}

export function patternProblem(v: string, regex: string, expected: string): string | null {
  return new RegExp(regex).test(v) ? null : `must be ${expected}`;
}
