// Checks a filter graph (-vf, -af, -filter:x, -filter_complex, task.filter_complex): parse it as
// ffmpeg does, judge every filter by its verdict (verdicts/filters*.ts) and every option by the
// FFmpeg catalogue (its name, type and range) and its verdict, and write the graph back out in a
// canonical, fully escaped form, which is what the runner hands to ffmpeg.
import { CATALOGUE } from './catalogue/catalogue.js';
import type { AvOption, CatalogueFilter } from './catalogue/types.js';
import { parseFilterArgs } from './filtergraph/parse-args.js';
import { FilterGraphSyntaxError, parseFilterGraph, type GraphFilter } from './filtergraph/parse-graph.js';
import { serializeFilterGraph, type CanonicalFilter } from './filtergraph/serialize.js';
import { LIMITS } from './limits.js';
import { checkOptionValue } from './options/check-value.js';
import { charCount, hasControlChar, refuse, show } from './refuse.js';
import { streamRefProblem } from './stream-spec.js';
import { parseVideoSize } from './values/cli-values.js';
import { entryVerdict, optionVerdict, refusalText, SHARED_OPTION_VERDICTS } from './verdicts/index.js';
import type { SideKind } from './verdicts/types.js';

export interface GraphContext {
  /** The option or field carrying the graph, as written (for messages): '-vf', 'task.filter_complex'. */
  option: string;
  kind: 'simple' | 'complex';
  /** Simple graphs: the stream type being filtered, when the option says (-vf, -af, -filter:a). */
  media?: 'video' | 'audio';
  /** Number of task inputs (complex graphs refer to them as [0:v], [1:a]). */
  inputCount: number;
  /** Resolves a value naming a task input read by a filter (fontfile=, subtitles=); returns the staged path. */
  sideFile?: (use: SideKind, value: string, what: string) => string;
  /** Instance names for filters without one (report outputs attribute log lines by them). */
  instanceName?: (filter: string, position: number) => string;
}

export interface CheckedGraph {
  /** The graph to pass to ffmpeg: same meaning, canonical spelling. */
  canonical: string;
  /** Filter names used, in order. */
  filters: string[];
  /** Instance names of the filters, in order (given, or from instanceName; undefined: ffmpeg's own). */
  instances: Array<string | undefined>;
  /** Labelled outputs nothing in the graph consumes (what -map [label] can select). */
  outputLabels: string[];
  /** Labelled inputs nothing in the graph produces (input streams such as 0:v). */
  inputLabels: string[];
  /** Each filter as checked, for the planner's analysis (which filters end, which loop). */
  checked: ReadonlyArray<{
    name: string;
    inputs: readonly string[];
    outputs: readonly string[];
    options: ReadonlyMap<string, string>;
    separator: ',' | ';' | '';
  }>;
}

/**
 * Filters that read their width alone as a frame size: scale with only w (scale=hd720,
 * scale=640x480) swaps it into its size option.
 */
const SIZE_WHEN_ALONE: Readonly<Record<string, readonly [string, string]>> = { scale: ['w', 'h'], scale2ref: ['w', 'h'] };

const LABEL = /^[A-Za-z0-9_.:-]{1,64}$/;
const INSTANCE = /^[A-Za-z0-9_]{1,64}$/;

/**
 * Options that set how many pads a filter with a variable number of inputs or outputs gets: they
 * are bounded (each pad is a stream the graph must carry).
 */
const PAD_COUNT_OPTIONS = new Set(['inputs', 'outputs', 'nb_inputs', 'nb_outputs', 'n']);

function graphName(ctx: GraphContext, start = true): string {
  return `${start ? 'Filter' : 'the filter'} graph of '${ctx.option}'`;
}

/** The catalogue entry of an allowed filter, or a refusal naming why it is not allowed. */
function allowedFilter(name: string): CatalogueFilter {
  const verdict = entryVerdict('filter', name);
  const entry = Object.hasOwn(CATALOGUE.filters, name) ? CATALOGUE.filters[name] : undefined;
  if (!entry) refuse(`Filter ${show(name)} is not a filter of this FFmpeg build`);
  if (!verdict) refuse(`Filter ${show(name)} is not allowed: it has not been judged for this FFmpeg build yet`);
  if (verdict.verdict === 'refuse') refuse(`Filter ${show(name)} is not allowed: ${refusalText(verdict)}`);
  return entry;
}

function padTypes(entry: CatalogueFilter): Set<string> {
  return new Set([...entry.inputs, ...entry.outputs].map((p) => p.type));
}

function checkMedia(name: string, entry: CatalogueFilter, ctx: GraphContext) {
  if (ctx.kind !== 'simple' || ctx.media === undefined) return;
  const types = padTypes(entry);
  const other = ctx.media === 'video' ? 'audio' : 'video';
  if (types.size > 0 && !types.has(ctx.media) && types.has(other)) {
    refuse(`Filter '${name}' is ${other === 'audio' ? 'an audio' : 'a video'} filter and cannot be used in '${ctx.option}'`);
  }
}

function findFilterOption(entry: CatalogueFilter, key: string): { opt: AvOption; shared: boolean } | undefined {
  const own = entry.options.find((o) => o.name === key);
  if (own) return { opt: own, shared: false };
  const generic = CATALOGUE.shared.AVFilter.find((o) => o.name === key);
  return generic ? { opt: generic, shared: true } : undefined;
}

/** An option's own name for an alias (width is w). */
function canonicalName(entry: CatalogueFilter, key: string): string {
  return entry.options.find((o) => o.name === key)?.alias_of ?? key;
}

function checkFilter(f: GraphFilter, position: number, ctx: GraphContext): CanonicalFilter & { optionMap: Map<string, string> } {
  const entry = allowedFilter(f.name);
  if (f.instance !== undefined && !INSTANCE.test(f.instance)) {
    refuse(`Filter instance name ${show(f.instance)} (after '@') may only contain letters, digits and underscores`);
  }
  checkMedia(f.name, entry, ctx);
  for (const label of [...f.inputs, ...f.outputs]) {
    if (!LABEL.test(label))
      refuse(`Filter label ${show(label)} in ${graphName(ctx, false)} may only contain letters, digits, '_', '.', ':' and '-'`);
  }
  let parsed;
  try {
    parsed = parseFilterArgs(f.args ?? '');
  } catch (e) {
    if (e instanceof FilterGraphSyntaxError) refuse(`Arguments of filter '${f.name}' are malformed: ${e.message}`);
    throw e;
  }
  if (parsed.positional.length > entry.shorthand.length) {
    const n = entry.shorthand.length;
    refuse(
      n === 0
        ? `Filter '${f.name}' takes only named options (option=value)`
        : `Filter '${f.name}' takes at most ${n} value${n === 1 ? '' : 's'} without a name (${entry.shorthand.join(':')}); name the others (option=value)`,
    );
  }
  const given: Array<[string, string]> = [...parsed.positional.map((v, i): [string, string] => [entry.shorthand[i]!, v]), ...parsed.named];
  const judged = entryVerdict('filter', f.name);
  const options: Array<[string, string]> = [];
  const alone = SIZE_WHEN_ALONE[f.name];
  const names = new Set(given.map(([k]) => canonicalName(entry, k)));
  for (const [key, value] of given) {
    if (alone && canonicalName(entry, key) === alone[0] && !names.has(alone[1]) && !names.has('size')) {
      const size = parseVideoSize(value);
      if (!size || size[0] > LIMITS.maxDimension || size[1] > LIMITS.maxDimension) {
        refuse(
          `Value ${show(value)} of option '${key}' of filter '${f.name}' is read as a frame size when no height is given: it must be a size such as 640x480 or hd720, at most ${LIMITS.maxDimension}x${LIMITS.maxDimension}`,
        );
      }
      options.push(['size', `${size[0]}x${size[1]}`]);
      continue;
    }
    const found = findFilterOption(entry, key);
    if (!found) {
      const why = key.startsWith('/') ? ": '/' would load the value from a file" : '';
      refuse(`Filter '${f.name}' has no option ${show(key)}${why}`);
    }
    const what = `Option '${key}' of filter '${f.name}'`;
    if (key === 'enable' && found.shared && !entry.flags.includes('timeline'))
      refuse(`Filter '${f.name}' does not support 'enable' (timeline editing)`);
    const verdict = optionVerdict(
      found.shared ? SHARED_OPTION_VERDICTS.AVFilter : judged?.verdict === 'allow' ? judged.options : undefined,
      found.opt,
    );
    if (verdict === undefined) refuse(`${what} is not allowed: it has not been judged for this FFmpeg build yet`);
    if (value === '') refuse(`Value of option '${key}' of filter '${f.name}' is empty`);
    const canonical = checkOptionValue(found.opt, verdict, value, { what, ...(ctx.sideFile ? { sideFile: ctx.sideFile } : {}) });
    if (PAD_COUNT_OPTIONS.has(key) && (entry.flags.includes('dynamic_inputs') || entry.flags.includes('dynamic_outputs'))) {
      const max = f.name === 'concat' && key === 'n' ? LIMITS.maxInputs : LIMITS.maxFilterPads;
      const n = Number(canonical);
      if (Number.isFinite(n) && n > max)
        refuse(`Value ${show(value)} of ${what.charAt(0).toLowerCase()}${what.slice(1)} must be at most ${max}`);
    }
    options.push([key, canonical]);
  }
  const instance = f.instance ?? ctx.instanceName?.(f.name, position);
  return {
    inputs: f.inputs,
    name: f.name,
    ...(instance === undefined ? {} : { instance }),
    options,
    outputs: f.outputs,
    separator: f.separator,
    optionMap: new Map(options),
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
  const canonical = graph.filters.map((f, i) => checkFilter(f, i, ctx));
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
  return {
    canonical: serializeFilterGraph(canonical),
    filters: graph.filters.map((f) => f.name),
    instances: canonical.map((f) => f.instance),
    outputLabels,
    inputLabels,
    checked: canonical.map((f) => ({ name: f.name, inputs: f.inputs, outputs: f.outputs, options: f.optionMap, separator: f.separator })),
  };
}
