// Which video filters are frame-local: the frame a filter puts out depends only on the frame it is
// given at the same position and on its options, never on earlier or later frames, on the frame's
// time, number or position, nor on state it keeps from frame to frame (a counter, a random
// generator, a running average). A video chain of such filters can be cut at any keyframe, each
// part filtered on its own, and the parts joined: the frames are the ones a whole run makes. That
// is what lets the planner split a long encode (plan/split.ts). A filter not listed here is not
// frame-local (the safe default); a listed one is not either when an option of this use of it reads
// the frame's time or number (crop=x=t*10, enable='between(t,1,5)', drawtext's %{pts}).
import { CATALOGUE } from '../catalogue/catalogue.js';
import type { FilterArgs } from '../filtergraph/parse-args.js';
import { entryOptions, SHARED_OPTION_VERDICTS } from './index.js';
import type { OptionVerdict } from './types.js';

/**
 * Spatial or colour operations on one frame. Left out on purpose (they read other frames or keep
 * state): fade, setpts, select, fps, framerate, minterpolate, deshake, tmix, tblend, reverse, loop,
 * trim, tpad, zoompan, hqdn3d, atadenoise, tmedian, yadif, bwdif (deinterlacers read the
 * neighbouring frames), noise, vignette and deband (random dithering), subtitles and ass (they draw
 * by the frame's time). overlay is frame-local with a still image, but needs a second input, which
 * only filter_complex gives (not split yet). nlmeans is here: libavfilter's is spatial only.
 * noformat is not: it can make the graph convert to a paletted format (below).
 */
export const FRAME_LOCAL_FILTERS: ReadonlySet<string> = new Set([
  // Geometry.
  'scale',
  'crop',
  'pad',
  'transpose',
  'hflip',
  'vflip',
  'rotate',
  'setsar',
  'setdar',
  'fillborders',
  // Formats and frame parameters.
  'format',
  'null',
  'copy',
  'setparams',
  'setfield',
  'colorspace',
  'colormatrix',
  'zscale',
  'tonemap',
  // Colour.
  'eq',
  'hue',
  'huesaturation',
  'colorchannelmixer',
  'colorbalance',
  'colorlevels',
  'colorcontrast',
  'colorcorrect',
  'colorize',
  'colortemperature',
  'colorkey',
  'chromakey',
  'curves',
  'lut',
  'lutrgb',
  'lutyuv',
  'lut1d',
  'lut3d',
  'negate',
  'vibrance',
  'selectivecolor',
  'monochrome',
  'exposure',
  // Blur, sharpen, spatial denoise, edges.
  'unsharp',
  'boxblur',
  'gblur',
  'avgblur',
  'smartblur',
  'cas',
  'convolution',
  'median',
  'nlmeans',
  'removegrain',
  'edgedetect',
  'sobel',
  'prewitt',
  // Drawing.
  'drawbox',
  'drawgrid',
  'drawtext',
  'delogo',
  'geq',
  'chromashift',
  'rgbashift',
]);

/**
 * Names an expression may use that give a frame's time, number or file position (t, n, pts, pos;
 * geq's T and N; perspective's in and on), or keep values from one frame to the next (st, ld) or
 * draw random numbers from a generator that runs on across frames (random).
 */
const FRAME_VARIABLES: ReadonlySet<string> = new Set([
  't',
  'T',
  'n',
  'N',
  'pts',
  'PTS',
  'pos',
  'POS',
  'in',
  'on',
  'time',
  'frame',
  'random',
  'st',
  'ld',
]);

/** drawtext's text expansions (%{name:args}) whose result depends only on the frame itself. */
const FRAME_TEXT_FUNCTIONS: ReadonlySet<string> = new Set(['metadata', 'pict_type']);
/** drawtext's expression expansions: frame-local unless the expression reads a frame variable. */
const EXPRESSION_TEXT_FUNCTIONS: ReadonlySet<string> = new Set(['expr', 'e', 'expr_int_format', 'eif']);

/** The first frame variable an expression names, or undefined. */
function frameVariable(expr: string): string | undefined {
  for (const m of expr.matchAll(/[A-Za-z_][A-Za-z0-9_]*/g)) {
    // A name right after a digit or '.' is part of a number (1e3, 0x1f).
    const before = m.index > 0 ? expr[m.index - 1]! : '';
    if (/[0-9.]/.test(before)) continue;
    if (FRAME_VARIABLES.has(m[0])) return m[0];
  }
  return undefined;
}

/** The first %{...} expansion of a drawtext text that depends on more than the frame, or undefined. */
function timedExpansion(text: string): string | undefined {
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '\\') {
      i++;
      continue;
    }
    if (text[i] !== '%' || text[i + 1] !== '{') continue;
    const end = text.indexOf('}', i);
    const body = text.slice(i + 2, end < 0 ? text.length : end);
    const colon = body.indexOf(':');
    const fn = colon < 0 ? body : body.slice(0, colon);
    const args = colon < 0 ? '' : body.slice(colon + 1);
    if (FRAME_TEXT_FUNCTIONS.has(fn)) continue;
    if (EXPRESSION_TEXT_FUNCTIONS.has(fn) && frameVariable(args) === undefined) continue;
    return `%{${body}}`;
  }
  return undefined;
}

/**
 * The filter's options as libavfilter reads them: bare values fill the shorthand in order, an
 * alias sets its option. Keyed by the option's own name; `as` is the name the task wrote.
 */
function namedOptions(name: string, args: FilterArgs): Map<string, { value: string; as: string }> {
  const entry = CATALOGUE.filters[name]!;
  const out = new Map<string, { value: string; as: string }>();
  const given: Array<[string, string]> = [...args.positional.map((v, i): [string, string] => [entry.shorthand[i] ?? '', v]), ...args.named];
  for (const [key, value] of given) out.set(entry.options.find((o) => o.name === key)?.alias_of ?? key, { value, as: key });
  return out;
}

/** drawtext draws text that can change with the frame's time beyond its expression options. */
function drawtextProblem(named: ReadonlyMap<string, { value: string }>): string | undefined {
  const options = new Map([...named].map(([k, v]) => [k, v.value]));
  const expansion = options.get('expansion') ?? 'normal';
  if (options.has('timecode')) return 'draws a running timecode (timecode=)';
  if (options.get('reload') !== undefined && options.get('reload') !== '0') return 'reads its text file again while it runs (reload=)';
  if (expansion === 'none' || expansion === '0') return undefined;
  if (expansion === 'strftime' || expansion === '2') return 'expands the text with the clock (expansion=strftime)';
  if (options.has('textfile'))
    return 'reads its text from a file, which may hold expansions such as %{pts} (give text=, or expansion=none)';
  for (const key of ['text', 'fontcolor_expr']) {
    const value = options.get(key);
    const timed = value === undefined ? undefined : timedExpansion(value);
    if (timed) return `draws the frame's time or number (${timed} in ${key})`;
  }
  return undefined;
}

/**
 * Pixel formats swscale reaches by error-diffusion dithering, whose error runs on from one frame to
 * the next (a part would start it afresh): the paletted and 1-, 4- and 8-bit RGB formats.
 */
const ERROR_DIFFUSED_FORMATS: ReadonlySet<string> = new Set([
  'pal8',
  'rgb8',
  'bgr8',
  'rgb4',
  'bgr4',
  'rgb4_byte',
  'bgr4_byte',
  'monob',
  'monow',
]);

/** Dither modes of listed filters that carry state or randomness across frames. */
const STATEFUL_DITHER: Readonly<Record<string, ReadonlySet<string>>> = {
  zscale: new Set(['random', 'error_diffusion']),
  colorspace: new Set(['fsb']),
};

/** A value of an option with named constants, by name (the value may be given as its number). */
function constName(filter: string, option: string, value: string): string {
  const opt = CATALOGUE.filters[filter]!.options.find((o) => o.name === option);
  return opt?.consts?.find((c) => c.name === value || String(c.value) === value)?.name ?? value;
}

/** Dithering whose result depends on earlier frames. */
function ditherProblem(name: string, options: ReadonlyMap<string, { value: string }>): string | undefined {
  const formats = name === 'format' ? (options.get('pix_fmts')?.value.split('|') ?? []) : [];
  const dithered = formats.find((f) => ERROR_DIFFUSED_FORMATS.has(f.trim()));
  if (dithered) return `converts to ${dithered}, whose error-diffusion dithering runs on across frames`;
  const modes = STATEFUL_DITHER[name];
  const dither = options.get('dither')?.value;
  if (modes && dither !== undefined && modes.has(constName(name, 'dither', dither))) {
    return `dithers with state across frames (dither=${dither})`;
  }
  return undefined;
}

const EXPRESSION_VERDICTS: ReadonlySet<OptionVerdict> = new Set(['expr', 'dimension']);

/**
 * Why this use of a video filter is not frame-local ("the video filter fade carries state across
 * frames"), or undefined when it is. `args` is the filter's parsed argument string.
 */
export function frameLocalProblem(name: string, args: FilterArgs): string | undefined {
  if (!FRAME_LOCAL_FILTERS.has(name) || !Object.hasOwn(CATALOGUE.filters, name)) {
    return `the video filter ${name} is not frame-local (it may read other frames or carry state across them)`;
  }
  const options = namedOptions(name, args);
  const judged = entryOptions('filter', name) ?? {};
  for (const [key, { value, as }] of options) {
    const verdict = key === 'enable' ? SHARED_OPTION_VERDICTS.AVFilter.enable : Object.hasOwn(judged, key) ? judged[key] : undefined;
    if (verdict === undefined || !EXPRESSION_VERDICTS.has(verdict)) continue;
    const variable = frameVariable(value);
    if (variable !== undefined) return `the video filter ${name} reads the frame's time or number (${variable} in ${as}=)`;
  }
  const dither = ditherProblem(name, options);
  if (dither) return `the video filter ${name} ${dither}`;
  if (name === 'drawtext') {
    const problem = drawtextProblem(options);
    if (problem) return `the video filter drawtext ${problem}`;
  }
  return undefined;
}
