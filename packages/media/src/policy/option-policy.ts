// The option allow-list applied to one output's `options` array: read it as ffmpeg reads argv
// (-name[:specifier] followed by a value unless the option is a flag), refuse anything not on the
// allow-list, check every value, and return the argv the runner passes before the output path.
import { extensionOf } from './file-name.js';
import { LIMITS } from './limits.js';
import { EXTENSION_MUXERS, IMAGE_SEQUENCE_EXTENSIONS } from './muxers.js';
import { parseNumberedPattern } from './numbered-pattern.js';
import { lookupOption, REFUSED_OPTIONS, type OptionRule } from './option-table.js';
import { checkOptionValue } from './option-values.js';
import { pathOrUrlProblem } from './path-like.js';
import { charCount, hasControlChar, refuse, show } from './refuse.js';
import { METADATA_SPECIFIER, STREAM_SPECIFIER } from './stream-spec.js';

export interface OutputContext {
  /** The output's file name (task.outputs[i].file), already a valid file name. */
  fileName: string;
  /** Number of task inputs; -map and filtergraph labels refer to them by index. */
  inputCount: number;
}

export interface PlannedOutput {
  fileName: string;
  /**
   * The checked options, in order, to pass to ffmpeg before this output's path. Option names are as
   * given; filtergraph values are replaced by their canonical form. The runner appends the output
   * path, which must be absolute (or ./-prefixed): names may start with '-' or contain ':'.
   */
  args: string[];
  /** The muxer that writes the file: from -f, or what ffmpeg picks for the extension. */
  muxer: string;
  muxerFrom: 'option' | 'extension';
  /** The name holds %d / %0Nd: the image muxer writes one file per frame. */
  numberedPattern: boolean;
  /**
   * Bound on video frames, when -frames / -frames:v / -vframes is given: the largest -frames value
   * of the output, whatever its specifier (see checkOutputOptions).
   */
  maxFrames?: number;
  /** Most files this output can write: 1, or maxFrames for a numbered pattern. */
  maxFiles: number;
  /** Filtergraph labels selected with -map [label]. */
  mapLabels: string[];
  /** Unconsumed output labels of the -filter_complex graphs given in these options. */
  graphOutputLabels: string[];
  /** A -filter_complex (-lavfi) graph is given with this output's options. */
  hasComplexGraph: boolean;
  /** Filters used by all graphs of these options, in order (for logs). */
  filters: string[];
}

const specifierPattern = (rule: OptionRule) => (rule.specifier === 'metadata' ? METADATA_SPECIFIER : STREAM_SPECIFIER);

/** A -map value that selects one stream: a graph label, or an input's stream by index (0:1, 0:v:0). */
const SINGLE_STREAM_MAP = /^(\[[^\]]+\]|\d+:(?:[vV]:)?\d+\??)$/;

/** Specifiers that bound the video frames of an image output (one of them must be given). */
const FRAME_BOUND_SPECS: ReadonlySet<string | null> = new Set([null, 'v', 'v:0', 'V']);

function readOptionName(tok: string): { name: string; spec: string | null } {
  if (!tok.startsWith('-') || tok === '-') {
    const path = pathOrUrlProblem(tok);
    refuse(`Unexpected ${show(tok)} where an option was expected${path ? ` (it looks like ${path})` : ''}: ffmpeg would take it as another output; every option starts with '-' and its value follows it`);
  }
  if (tok.startsWith('-/')) refuse(`Option ${show(tok)} is not allowed: '-/' makes ffmpeg read the option's value from a file`);
  const body = tok.slice(1);
  const colon = body.indexOf(':');
  return colon < 0 ? { name: body, spec: null } : { name: body.slice(0, colon), spec: body.slice(colon + 1) };
}

export function checkOutputOptions(options: readonly string[], ctx: OutputContext): PlannedOutput {
  if (options.length > LIMITS.maxOptions) refuse(`Output '${ctx.fileName}' has ${options.length} options; at most ${LIMITS.maxOptions} are allowed`);
  const args: string[] = [];
  const seen = new Set<string>();
  const mapLabels: string[] = [];
  const maps: string[] = [];
  const graphOutputLabels: string[] = [];
  let hasComplexGraph = false;
  const filters: string[] = [];
  let muxerOption: string | undefined;
  let framesBound = false;
  let largestFrames = 0;
  let update = false;

  for (let i = 0; i < options.length; i++) {
    const tok = options[i]!;
    if (typeof tok !== 'string') refuse(`Options of output '${ctx.fileName}' must be strings`);
    if (charCount(tok) > LIMITS.maxOptionChars) refuse(`Option ${show(tok)} is ${charCount(tok)} characters long; at most ${LIMITS.maxOptionChars} are allowed`);
    if (hasControlChar(tok)) refuse(`Option ${show(tok)} contains a control character`);
    const { name, spec } = readOptionName(tok);
    const found = lookupOption(name);
    if (!found) {
      const why = Object.hasOwn(REFUSED_OPTIONS, name) ? `: ${REFUSED_OPTIONS[name]}` : '';
      refuse(`Option ${show(`-${name}`)} is not allowed${why}`);
    }
    const { rule, impliedSpec } = found;
    if (spec !== null) {
      if (impliedSpec !== null) refuse(`Option '-${name}' takes no specifier; write -${rule.name}:${impliedSpec}:... instead of ${show(tok)}`);
      if (rule.specifier === 'none') refuse(`Option '-${name}' takes no stream specifier (${show(tok)})`);
      if (!specifierPattern(rule).test(spec)) refuse(`Specifier ${show(spec)} of ${show(tok)} is not supported; use forms such as v, a:0, 1 or s:a:0`);
    }
    const effectiveSpec = impliedSpec ?? spec;
    const key = `${rule.name}:${effectiveSpec ?? ''}`;
    if (!rule.repeatable && seen.has(key)) refuse(`Option ${show(tok)} is given more than once`);
    seen.add(key);

    if (rule.value === null) {
      args.push(tok);
      continue;
    }
    if (i + 1 >= options.length) refuse(`Option ${show(tok)} needs a value`);
    const raw = options[++i]!;
    if (typeof raw !== 'string') refuse(`Options of output '${ctx.fileName}' must be strings`);
    const isGraph = rule.value.type === 'filtergraph';
    const max = isGraph ? LIMITS.maxFilterGraphChars : LIMITS.maxOptionChars;
    if (charCount(raw) > max) {
      refuse(`Value of ${show(tok)} is ${charCount(raw)} characters long; at most ${max} are allowed${isGraph ? ' for a filter graph' : ''}`);
    }
    if (!isGraph && hasControlChar(raw)) refuse(`Value of ${show(tok)} contains a control character`);
    const checked = checkOptionValue(rule.value, raw, { option: tok, spec: effectiveSpec, inputCount: ctx.inputCount });
    args.push(tok, checked.value);

    if (rule.name === 'map') maps.push(checked.value);
    if (checked.mapLabel !== undefined) mapLabels.push(checked.mapLabel);
    if (checked.graph) {
      filters.push(...checked.graph.filters);
      if (rule.value.type === 'filtergraph' && rule.value.graph === 'complex') {
        hasComplexGraph = true;
        graphOutputLabels.push(...checked.graph.outputLabels);
      }
    }
    if (rule.name === 'f') muxerOption = checked.value;
    if (rule.name === 'update') update = checked.value === '1';
    if (rule.name === 'frames') {
      // ffmpeg applies to each stream the last -frames that matches it, whatever the specifier:
      // with -frames:v 5 -frames:v:0 100000 (or -frames:0 100000) the video gets 100000. So the
      // bound is the largest value given, not the smallest; one with a FRAME_BOUND_SPECS specifier
      // must be among them, or the video stream may match none and be unbounded.
      largestFrames = Math.max(largestFrames, Number(checked.value));
      if (FRAME_BOUND_SPECS.has(effectiveSpec)) framesBound = true;
    }
  }
  const maxFrames = framesBound ? largestFrames : undefined;

  const ext = extensionOf(ctx.fileName);
  let muxer: string;
  if (muxerOption !== undefined) muxer = muxerOption;
  else if (Object.hasOwn(EXTENSION_MUXERS, ext)) muxer = EXTENSION_MUXERS[ext]!;
  else refuse(`Output ${show(ctx.fileName)} needs an allowed extension (${Object.keys(EXTENSION_MUXERS).join(', ')}) or an allowed -f`);
  const pattern = parseNumberedPattern(ctx.fileName);
  if (typeof pattern === 'string') refuse(`Output file name ${show(ctx.fileName)} ${pattern}`);
  let maxFiles = 1;
  if (pattern !== null) {
    if (muxerOption !== undefined) refuse(`Output ${show(ctx.fileName)} is a numbered pattern; leave out -f (the image muxer is chosen from the extension)`);
    if (!(IMAGE_SEQUENCE_EXTENSIONS as readonly string[]).includes(ext)) {
      refuse(`Output ${show(ctx.fileName)} is a numbered pattern; those are only for images (${IMAGE_SEQUENCE_EXTENSIONS.join(', ')})`);
    }
    if (update) refuse(`Output ${show(ctx.fileName)} is a numbered pattern and cannot use -update 1`);
    // The image muxer writes one file per packet of every stream the output holds, and -frames
    // bounds each stream: the bound below holds for one stream only. So a numbered output takes at
    // most one -map, naming one stream, and drops audio, subtitles and data (an image sequence
    // cannot hold them anyway).
    if (maps.length > 1 || (maps.length === 1 && !SINGLE_STREAM_MAP.test(maps[0]!))) {
      refuse(`Output ${show(ctx.fileName)} is a numbered pattern and writes one stream: give at most one -map, naming a single stream such as 0:v:0 or [label]`);
    }
    if (maxFrames === undefined || maxFrames > LIMITS.maxFilesPerTask) {
      refuse(`Output ${show(ctx.fileName)} is a numbered pattern and needs -frames:v <n> with n at most ${LIMITS.maxFilesPerTask}, to bound the files it writes`);
    }
    // -an does not drop a mapped graph output ([aud] from an audio graph), and -frames:v does not
    // bound it: each of its packets would become a file. A -frames without specifier, last, is
    // the last match for every stream (ffmpeg applies the last), so whatever the one stream is,
    // it stops at the bound; a video stream gets the value it had already.
    args.push('-an', '-sn', '-dn', '-frames', String(maxFrames));
    maxFiles = maxFrames;
  }
  return {
    fileName: ctx.fileName,
    args,
    muxer,
    muxerFrom: muxerOption === undefined ? 'extension' : 'option',
    numberedPattern: pattern !== null,
    ...(maxFrames === undefined ? {} : { maxFrames }),
    maxFiles,
    mapLabels,
    graphOutputLabels,
    hasComplexGraph,
    filters,
  };
}
