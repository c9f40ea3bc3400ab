// Checks a filtergraph (-vf, -af, -filter:x, -filter_complex) against the filter allow-list: parse
// it as ffmpeg does, check every filter name, option name and value, and return it rewritten in a
// canonical, fully escaped form, which is what the runner hands to ffmpeg.
import { dimensionProblem } from './filtergraph/dimension.js';
import { unboundedExpressionFunction } from './filtergraph/expression.js';
import { parseFilterArgs } from './filtergraph/parse-args.js';
import { FilterGraphSyntaxError, parseFilterGraph, type GraphFilter } from './filtergraph/parse-graph.js';
import { serializeFilterGraph, type CanonicalFilter } from './filtergraph/serialize.js';
import { FILTERS, GENERIC_FILTER_OPTIONS, type FilterRule, type FilterValueKind } from './filter-table.js';
import { LIMITS } from './limits.js';
import { pathOrUrlProblem } from './path-like.js';
import { charCount, hasControlChar, refuse, show } from './refuse.js';
import { streamRefProblem } from './stream-spec.js';
import { intProblem, parseSize, rateProblem, sizeProblem } from './values.js';

export interface GraphContext {
  /** The option carrying the graph, as written (for messages): '-vf', '-filter_complex'. */
  option: string;
  kind: 'simple' | 'complex';
  /** Simple graphs: the stream type being filtered, when the option says (-vf, -af, -filter:a). */
  media?: 'video' | 'audio';
  /** Number of task inputs (complex graphs refer to them as [0:v], [1:a]). */
  inputCount: number;
}

export interface CheckedGraph {
  /** The graph to pass to ffmpeg: same meaning, canonical spelling. */
  canonical: string;
  /** Filter names used, in order. */
  filters: string[];
  /** Labelled outputs nothing in the graph consumes (what -map [label] can select). */
  outputLabels: string[];
  /** Labelled inputs nothing in the graph produces (input streams such as 0:v). */
  inputLabels: string[];
}

/** Why a filter is refused, for names people try. Any other unknown name is simply not allowed. */
export const REFUSED_FILTERS: Readonly<Record<string, string>> = {
  movie: 'it opens files or URLs', amovie: 'it opens files or URLs',
  subtitles: 'it opens subtitle and font files', ass: 'it opens subtitle and font files',
  drawtext: 'it can read text and font files', lut3d: 'it reads a file', lut1d: 'it reads a file',
  haldclut: 'it can read a file', ladspa: 'it loads plugin code', lv2: 'it loads plugin code',
  frei0r: 'it loads plugin code', frei0r_src: 'it loads plugin code', sendcmd: 'it reads commands from a file',
  asendcmd: 'it reads commands from a file', zmq: 'it takes commands from the network',
  azmq: 'it takes commands from the network', dnn_processing: 'it loads a model file',
  dnn_detect: 'it loads a model file', dnn_classify: 'it loads a model file', sr: 'it loads a model file',
  psnr: 'it can write a stats file', ssim: 'it can write a stats file', libvmaf: 'it reads model files and writes logs',
  vidstabdetect: 'it writes a file', vidstabtransform: 'it reads a file', signature: 'it writes files',
  metadata: 'it can write a file', ametadata: 'it can write a file', deshake: 'it can write a log file',
  loop: 'it can repeat without end', aloop: 'it can repeat without end', reverse: 'it buffers the whole stream',
  areverse: 'it buffers the whole stream', tpad: 'it can pad without end', apad: 'it can pad without end',
  zoompan: 'it can multiply frames without bound', coreimage: 'not available', opencl: 'not available',
};

const LABEL = /^[A-Za-z0-9_.:-]{1,64}$/;
const INSTANCE = /^[A-Za-z0-9_]{1,64}$/;

/** "Filter graph of '-vf'" at the start of a sentence, "the filter graph of '-vf'" inside one. */
function graphName(ctx: GraphContext, start = true): string {
  return `${start ? 'Filter' : 'the filter'} graph of '${ctx.option}'`;
}

/** Why an option of an allowed filter is refused, for the file-taking ones. */
export const REFUSED_FILTER_OPTIONS: Readonly<Record<string, string>> = {
  psfile: 'it reads a file', plot: 'it writes a file', debug_kdtree: 'it writes a file', filename: 'it names a file',
  file: 'it names a file', textfile: 'it reads a file', fontfile: 'it reads a file', stats_file: 'it writes a file',
  stats_version: 'it belongs to stats_file', result: 'it names a file', model: 'it reads a model file',
};

function checkValueKind(kind: FilterValueKind, value: string): string | null {
  switch (kind.kind) {
    case 'text':
      return null;
    case 'dimension':
      return dimensionProblem(value);
    case 'size':
      return sizeProblem(value, kind.max);
    case 'grid': {
      const s = parseSize(value);
      return s && s[0] >= 1 && s[1] >= 1 && s[0] <= kind.max && s[1] <= kind.max ? null : `must be a grid such as 4x4, at most ${kind.max}x${kind.max}`;
    }
    case 'rate':
      return rateProblem(value);
    case 'int':
      return intProblem(value, kind.min, kind.max);
  }
}

function checkMedia(name: string, rule: FilterRule, ctx: GraphContext) {
  if (ctx.kind !== 'simple' || ctx.media === undefined) return;
  const ok = rule.media === 'video-or-audio' || rule.media === ctx.media;
  if (!ok) refuse(`Filter '${name}' is ${rule.media === 'audio' ? 'an audio' : 'a video'} filter and cannot be used in '${ctx.option}'`);
}

function checkFilter(f: GraphFilter, ctx: GraphContext): CanonicalFilter {
  if (!Object.hasOwn(FILTERS, f.name)) {
    const why = Object.hasOwn(REFUSED_FILTERS, f.name) ? `: ${REFUSED_FILTERS[f.name]}` : '';
    refuse(`Filter ${show(f.name)} is not allowed${why}`);
  }
  const rule = FILTERS[f.name]!;
  if (f.instance !== undefined && !INSTANCE.test(f.instance)) {
    refuse(`Filter instance name ${show(f.instance)} (after '@') may only contain letters, digits and underscores`);
  }
  checkMedia(f.name, rule, ctx);
  for (const label of [...f.inputs, ...f.outputs]) {
    if (!LABEL.test(label)) refuse(`Filter label ${show(label)} in ${graphName(ctx, false)} may only contain letters, digits, '_', '.', ':' and '-'`);
  }
  let parsed;
  try {
    parsed = parseFilterArgs(f.args ?? '');
  } catch (e) {
    if (e instanceof FilterGraphSyntaxError) refuse(`Arguments of filter '${f.name}' are malformed: ${e.message}`);
    throw e;
  }
  if (parsed.positional.length > rule.positional.length) {
    const n = rule.positional.length;
    refuse(n === 0
      ? `Filter '${f.name}' takes only named options (option=value)`
      : `Filter '${f.name}' takes at most ${n} value${n === 1 ? '' : 's'} without a name (${rule.positional.join(':')}); name the others (option=value)`);
  }
  const options: Array<[string, string]> = [
    ...parsed.positional.map((v, i): [string, string] => [rule.positional[i]!, v]),
    ...parsed.named,
  ];
  for (const [key, value] of options) {
    const kind = Object.hasOwn(rule.options, key) ? rule.options[key] : Object.hasOwn(GENERIC_FILTER_OPTIONS, key) ? GENERIC_FILTER_OPTIONS[key] : undefined;
    if (!kind) {
      const why = key.startsWith('/')
        ? ": '/' would load the value from a file"
        : Object.hasOwn(REFUSED_FILTER_OPTIONS, key) ? `: ${REFUSED_FILTER_OPTIONS[key]}` : '';
      refuse(`Filter '${f.name}' option ${show(key)} is not allowed${why}`);
    }
    const where = `filter '${f.name}' option '${key}'`;
    if (value === '') refuse(`Value of ${where} is empty`);
    if (hasControlChar(value)) refuse(`Value of ${where} contains a control character`);
    const path = pathOrUrlProblem(value);
    if (path) refuse(`Value of ${where} must not name a file or URL: ${show(value)} looks like ${path}`);
    const unbounded = unboundedExpressionFunction(value);
    if (unbounded) refuse(`Value of ${where} uses ${unbounded}(), which can run without end`);
    const problem = checkValueKind(kind, value);
    if (problem) refuse(`Value ${show(value)} of ${where} ${problem}`);
  }
  return {
    inputs: f.inputs,
    name: f.name,
    ...(f.instance === undefined ? {} : { instance: f.instance }),
    options,
    outputs: f.outputs,
    separator: f.separator,
  };
}

export function checkFilterGraph(text: string, ctx: GraphContext): CheckedGraph {
  if (charCount(text) > LIMITS.maxFilterGraphChars) {
    refuse(`${graphName(ctx)} is ${charCount(text)} characters long; at most ${LIMITS.maxFilterGraphChars} are allowed`);
  }
  if (hasControlChar(text, true)) refuse(`${graphName(ctx)} contains a control character`);
  let graph;
  try {
    graph = parseFilterGraph(text);
  } catch (e) {
    if (e instanceof FilterGraphSyntaxError) refuse(`${graphName(ctx)} is malformed: ${e.message}`);
    throw e;
  }
  if (graph.filters.length > LIMITS.maxFiltersPerGraph) {
    refuse(`${graphName(ctx)} has ${graph.filters.length} filters; at most ${LIMITS.maxFiltersPerGraph} are allowed`);
  }
  const canonical = graph.filters.map((f) => checkFilter(f, ctx));
  const produced = new Set(graph.filters.flatMap((f) => f.outputs));
  const consumed = new Set(graph.filters.flatMap((f) => f.inputs));
  const inputLabels = [...consumed].filter((l) => !produced.has(l));
  const outputLabels = [...produced].filter((l) => !consumed.has(l));
  if (ctx.kind === 'complex') {
    for (const label of inputLabels) {
      if (!/^\d/.test(label)) continue; // another graph's output; ffmpeg links or refuses it
      const problem = streamRefProblem(label, ctx.inputCount);
      if (problem) refuse(`Input label [${label}] in ${graphName(ctx, false)} ${problem}`);
    }
  }
  return { canonical: serializeFilterGraph(canonical), filters: graph.filters.map((f) => f.name), outputLabels, inputLabels };
}
