// An AVOption value checked as av_opt_set would set it (libavutil/opt.c): every spelling FFmpeg
// accepts, the value it stands for, and the option's own range. Returns the canonical text to pass
// on (numbers as the number checked, so ffmpeg gets exactly that), or a problem ("must be ...").
import { CATALOGUE } from '../catalogue/catalogue.js';
import type { AvOption } from '../catalogue/types.js';
import { evaluate } from './expr.js';
import { parseCliTime, parseVideoRate, parseVideoSize } from './cli-values.js';

export type AvValue = { canonical: string } | { problem: string };

const fmt = (n: number) => (n >= 1e300 ? 'max' : n <= -1e300 ? 'min' : Number.isInteger(n) ? String(n) : String(Number(n.toPrecision(15))));
const range = (o: AvOption) => `from ${fmt(o.min)} to ${fmt(o.max)}`;
const INTEGER_TYPES = new Set(['int', 'int64', 'uint64', 'flags', 'bool', 'pix_fmt', 'sample_fmt', 'channel_layout', 'duration']);

/** The option's named constants (of its unit) with the names av_opt_set adds. */
function constantsOf(o: AvOption): Record<string, number> {
  const out: Record<string, number> = {};
  for (const c of o.consts ?? []) if (typeof c.value === 'number') out[c.name] = c.value;
  out.default = typeof o.default === 'number' ? o.default : 0;
  out.max = o.max;
  out.min = o.min;
  out.none = 0;
  out.all = -1; // ~0
  return out;
}

/** set_string_number: a constant of the unit, or an expression over them; flags as +a-b. */
function numberValue(o: AvOption, raw: string): AvValue {
  const consts = constantsOf(o);
  const named = (o.consts ?? []).find((c) => c.name === raw);
  let value: number;
  if (o.type === 'flags') {
    // Tokens up to each + or -: +x sets x, -x clears it, a bare one replaces the value. Flags
    // have no range (write_number only checks they fit 32 bits), and any set of them is harmless:
    // the text goes on as given.
    for (const tok of raw.match(/[+-]?[^+-]+/g) ?? []) {
      const body = tok[0] === '+' || tok[0] === '-' ? tok.slice(1) : tok;
      const v = Object.hasOwn(consts, body) ? consts[body]! : evalOrNaN(body, consts);
      if (Number.isNaN(v)) return { problem: `must be flags of ${flagNames(o)} joined with + or -` };
    }
    return raw === '' ? { problem: `must be flags of ${flagNames(o)} joined with + or -` } : { canonical: raw };
  } else if (named && typeof named.value === 'number') {
    value = named.value;
  } else {
    const r = evaluate(raw, consts);
    if ('error' in r) return { problem: `${describeExpected(o)} (${r.error})` };
    value = r.value;
  }
  if (Number.isNaN(value) || value < o.min || value > o.max)
    return { problem: `must be ${INTEGER_TYPES.has(o.type) ? 'an integer' : 'a number'} ${range(o)}${rangeHint(o)} (got ${fmt(value)})` };
  if (named) return { canonical: raw };
  return { canonical: INTEGER_TYPES.has(o.type) ? String(Math.round(value)) : fmt(value) };
}

const evalOrNaN = (text: string, consts: Record<string, number>) => {
  const r = evaluate(text, consts);
  return 'value' in r ? r.value : NaN;
};

const flagNames = (o: AvOption) =>
  (o.consts ?? [])
    .map((c) => c.name)
    .slice(0, 12)
    .join(', ') || 'numbers';
const rangeHint = (o: AvOption) =>
  (o.consts?.length ?? 0) > 0
    ? ` or one of ${(o.consts ?? [])
        .map((c) => c.name)
        .slice(0, 12)
        .join(', ')}`
    : '';
const describeExpected = (o: AvOption) => `must be a number ${range(o)}${rangeHint(o)}`;

function boolValue(o: AvOption, raw: string): AvValue {
  const lower = raw.toLowerCase();
  let n: number;
  if (raw === 'auto') n = -1;
  else if (['true', 'y', 'yes', 'enable', 'enabled', 'on'].includes(lower)) n = 1;
  else if (['false', 'n', 'no', 'disable', 'disabled', 'off'].includes(lower)) n = 0;
  else if (/^\s*[+-]?\d+$/.test(raw)) n = Number(raw);
  else return { problem: 'must be true or false (1 or 0, yes or no, on or off)' };
  if (n < o.min || n > o.max) return { problem: `must be true or false${o.min < 0 ? ' or auto' : ''}` };
  return { canonical: String(n) };
}

const COLOR_NAMES = new Set(CATALOGUE.colors.map((c) => c.toLowerCase()));

/** av_parse_color: a name, random, 0xRRGGBB[AA], #RRGGBB[AA] or RRGGBB, then @alpha. */
export function colorProblem(raw: string): string | null {
  const hexOffset = raw.startsWith('#') ? 1 : raw.startsWith('0x') ? 2 : 0;
  const [color, alpha, extra] = raw.slice(hexOffset).split('@');
  if (extra !== undefined || color === undefined) return 'must be a colour such as red, #ff0000 or 0xff000080, with an optional @alpha';
  const lower = color.toLowerCase();
  const hex = /^[0-9a-fA-F]+$/.test(color);
  const ok =
    lower === 'random' ||
    lower === 'bikeshed' ||
    (hexOffset > 0 || /^[0-9a-fA-F]{6}$/.test(color) ? hex && (color.length === 6 || color.length === 8) : COLOR_NAMES.has(lower));
  if (!ok) return `is not a colour: give a name such as red or white, or #RRGGBB[AA] / 0xRRGGBB[AA]`;
  if (alpha !== undefined) {
    const a = alpha.startsWith('0x') ? Number.parseInt(alpha.slice(2), 16) : Number(alpha);
    const okAlpha = alpha.startsWith('0x')
      ? /^0x[0-9a-fA-F]+$/.test(alpha) && a <= 255
      : /^(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/.test(alpha) && a >= 0 && a <= 1;
    if (!okAlpha) return 'has an alpha that is not from 0.0 to 1.0 (or 0x00 to 0xff)';
  }
  return null;
}

const CHANNELS = new Set(CATALOGUE.channels);
const LAYOUTS = new Set(CATALOGUE.channel_layouts);

/** av_channel_layout_from_string / av_get_channel_layout: a name, channels joined by + or |, Nc, N channels, a mask. */
export function channelLayoutProblem(raw: string): string | null {
  if (LAYOUTS.has(raw) || CHANNELS.has(raw)) return null;
  if (/^\d+c$/.test(raw) || /^\d+ channels$/.test(raw)) return Number.parseInt(raw, 10) > 0 ? null : 'must have at least one channel';
  if (/^(?:0x[0-9a-fA-F]+|\d+)$/.test(raw)) return Number(raw) > 0 ? null : 'must not be 0';
  const parts = raw.split(/[+|]/);
  if (parts.length > 1 && parts.every((p) => CHANNELS.has(p) || LAYOUTS.has(p))) return null;
  return `must be a channel layout such as mono, stereo, 5.1, FL+FR or 2c`;
}

function formatValue(o: AvOption, raw: string, names: readonly string[], what: string): AvValue {
  if (raw === 'none' || names.includes(raw)) return { canonical: raw };
  // av_get_pix_fmt tries the name with the machine's endianness added (rgb48 is rgb48le here).
  if (o.type === 'pix_fmt' && names.includes(`${raw}le`)) return { canonical: raw };
  if (/^\d+$/.test(raw) && Number(raw) < names.length) return { canonical: raw };
  return {
    problem: `must be a ${what} such as ${names.slice(0, 3).join(', ')} (ffmpeg -${what === 'pixel format' ? 'pix_fmts' : 'sample_fmts'} lists them)`,
  };
}

/** Checks `raw` for option `o` the way av_opt_set does. */
export function checkAvValue(o: AvOption, raw: string): AvValue {
  switch (o.type) {
    case 'int':
    case 'int64':
    case 'uint64':
    case 'double':
    case 'float':
    case 'flags':
      return numberValue(o, raw);
    case 'bool':
      return boolValue(o, raw);
    case 'rational': {
      const ratio = /^\s*([+-]?\d+)[:/]([+-]?\d+)$/.exec(raw);
      const value = ratio ? Number(ratio[1]) / Number(ratio[2]) : evalOrNaN(raw, constantsOf(o));
      if (!Number.isFinite(value) || value < o.min || value > o.max)
        return { problem: `must be a ratio or number ${range(o)} (16:9, 1.7778)` };
      return { canonical: ratio ? raw.trim() : fmt(value) };
    }
    case 'image_size': {
      if (raw === 'none') return { canonical: raw };
      const s = parseVideoSize(raw);
      return s ? { canonical: `${s[0]}x${s[1]}` } : { problem: 'must be a size such as 1280x720 or a name such as hd720' };
    }
    case 'video_rate': {
      const r = parseVideoRate(raw);
      return r === undefined ? { problem: 'must be a frame rate such as 30, 29.97, 30000/1001 or ntsc' } : { canonical: raw };
    }
    case 'duration': {
      const s = parseCliTime(raw);
      if (s === undefined) return { problem: 'must be a duration such as 00:01:30.5, 90 or 500ms' };
      const us = Math.round(s * 1e6);
      if (us < o.min || us > o.max) return { problem: `must be from ${fmt(o.min / 1e6)} to ${fmt(o.max / 1e6)} seconds` };
      return { canonical: raw };
    }
    case 'color': {
      const p = colorProblem(raw);
      return p ? { problem: p } : { canonical: raw };
    }
    case 'pix_fmt':
      return formatValue(o, raw, CATALOGUE.pix_fmts, 'pixel format');
    case 'sample_fmt':
      return formatValue(o, raw, CATALOGUE.sample_fmts, 'sample format');
    case 'channel_layout':
    case 'chlayout': {
      const p = channelLayoutProblem(raw);
      return p ? { problem: p } : { canonical: raw };
    }
    case 'binary':
      return /^(?:[0-9a-fA-F]{2})*$/.test(raw) ? { canonical: raw } : { problem: 'must be hexadecimal digits, two per byte' };
    case 'string':
    case 'dict':
      return { canonical: raw };
  }
}
