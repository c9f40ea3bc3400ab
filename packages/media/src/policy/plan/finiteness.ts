// Which streams of a task can play without end: an input that loops forever (-loop 1 on an image,
// -stream_loop -1), a generator source without a duration (color=, sine=, anullsrc=), a loop=-1
// or an apad without a length. An output fed by one must be bounded (-t, -to, -fs, -frames or
// -shortest), else the task is refused before it runs, with how to bound it. Conservative: a
// filter's output is endless when any of its inputs is, unless the filter ends with its shortest
// or first input, or cuts (trim).
import { CATALOGUE } from '../catalogue/catalogue.js';
import type { CheckedGraph } from '../filter-policy.js';
import { parseCliTime } from '../values/cli-values.js';

type Checked = CheckedGraph['checked'][number];

/** Sources that end by themselves (one impulse response, a fixed text, a frame budget). */
const FINITE_SOURCES = new Set(['sinc', 'hilbert', 'afirsrc', 'flite', 'mptestsrc']);
const TRIM_ENDS = ['end', 'endi', 'end_pts', 'end_frame', 'end_sample', 'duration', 'durationi'];
const APAD_LENGTHS = ['pad_len', 'whole_len', 'pad_dur', 'whole_dur'];

const positiveTime = (v: string | undefined) => v !== undefined && (parseCliTime(v) ?? 0) > 0;
const positive = (v: string | undefined) => v !== undefined && Number(v) > 0;
const truthy = (v: string | undefined) => v === '1' || v === 'true';

/** A source filter of this build: it takes no input (color, testsrc2, sine, anullsrc...). */
export function isSourceFilter(name: string): boolean {
  const entry = CATALOGUE.filters[name];
  return entry !== undefined && entry.inputs.length === 0 && !entry.flags.includes('dynamic_inputs');
}

/** Why this filter makes its output endless by itself, or null. */
export function endlessCause(f: Checked): string | null {
  const entry = CATALOGUE.filters[f.name];
  if (isSourceFilter(f.name) && !FINITE_SOURCES.has(f.name)) {
    const hasDuration = entry!.options.some((o) => o.name === 'duration' || o.name === 'd');
    if (!hasDuration) return `filter '${f.name}' generates frames without end`;
    if (!positiveTime(f.options.get('duration') ?? f.options.get('d'))) return `filter '${f.name}' has no duration (d=)`;
    return null;
  }
  if ((f.name === 'loop' || f.name === 'aloop') && f.options.get('loop') === '-1') return `filter '${f.name}' loops without end (loop=-1)`;
  if (f.name === 'apad' && !APAD_LENGTHS.some((k) => positive(f.options.get(k)) || positiveTime(f.options.get(k))))
    return "filter 'apad' pads without end (no pad_dur, whole_dur, pad_len or whole_len)";
  if (f.name === 'tpad' && f.options.get('stop') === '-1') return "filter 'tpad' pads without end (stop=-1)";
  return null;
}

/** The filter cuts its output whatever its input (trim with an end). */
function cuts(f: Checked): boolean {
  return (f.name === 'trim' || f.name === 'atrim') && TRIM_ENDS.some((k) => f.options.has(k));
}

/** Whether the output of a filter with these inputs ends: its own rule for multi-input filters. */
function combine(f: Checked, inputs: boolean[]): boolean {
  if (inputs.length === 0) return false;
  const any = inputs.some(Boolean);
  const all = inputs.every(Boolean);
  if (truthy(f.options.get('shortest'))) return all;
  if (f.name === 'overlay') return f.options.get('eof_action') === 'endall' || f.options.get('eof_action') === '1' ? all : inputs[0]!;
  if (f.name === 'amix' || f.name === 'amerge') {
    const d = f.options.get('duration');
    if (f.name === 'amerge' || d === 'shortest' || d === '1') return all;
    if (d === 'first' || d === '2') return inputs[0]!;
  }
  return any;
}

/** Whether a stream may play without end (and why), and its type when the catalogue tells it. */
export interface StreamEnd {
  endless: boolean;
  cause?: string;
  media?: 'video' | 'audio';
}

export interface GraphEndlessness {
  /** Output label -> may play without end. */
  labels: Map<string, StreamEnd>;
  /** The graph's unlabelled outputs (ffmpeg sends them to the first output): the first endless one, if any. */
  unlabelled: StreamEnd;
  /** Every unlabelled output: ffmpeg's automatic selection picks no stream of their types then. */
  unlabelledAll: StreamEnd[];
}

/** The type of a filter's (first) output, when the catalogue names it. */
function outputMedia(name: string): 'video' | 'audio' | undefined {
  const t = CATALOGUE.filters[name]?.outputs[0]?.type;
  return t === 'video' || t === 'audio' ? t : undefined;
}

/**
 * Follows a graph's links the way libavfilter's parser makes them: labels in front of a filter
 * feed its first inputs, then the previous filter of the chain (',') feeds the next one.
 * `source` says whether an input label (0:v, another graph's output) or an unlabelled input may
 * be endless.
 */
export function graphEndlessness(graph: CheckedGraph, source: (label: string | undefined) => StreamEnd): GraphEndlessness {
  const labels = new Map<string, StreamEnd>();
  const unlabelled: StreamEnd = { endless: false };
  const unlabelledAll: StreamEnd[] = [];
  let chained: StreamEnd | undefined;
  for (let i = 0; i < graph.checked.length; i++) {
    const f = graph.checked[i]!;
    const inputs = f.inputs.map((l) => labels.get(l) ?? source(l));
    if (chained) inputs.push(chained);
    const entry = CATALOGUE.filters[f.name];
    const expected = entry ? Math.max(entry.inputs.length, entry.flags.includes('dynamic_inputs') ? inputs.length : 0) : inputs.length;
    while (inputs.length < expected) inputs.push(source(undefined));
    const own = endlessCause(f);
    const endless =
      own !== null ||
      (!cuts(f) &&
        combine(
          f,
          inputs.map((x) => x.endless),
        ));
    const cause = own ?? inputs.find((x) => x.endless)?.cause;
    const media = outputMedia(f.name);
    const state: StreamEnd = { endless, ...(endless && cause ? { cause } : {}), ...(media ? { media } : {}) };
    for (const l of f.outputs) labels.set(l, state);
    // A ',' passes the filter's (first unlabelled) output on to the next filter of the chain.
    const nextIsChain = graph.checked.length > i + 1 && f.separator === ',';
    chained = nextIsChain ? state : undefined;
    if (!nextIsChain && f.outputs.length === 0) {
      unlabelledAll.push(state);
      if (state.endless && !unlabelled.endless) Object.assign(unlabelled, state);
    }
  }
  return { labels, unlabelled, unlabelledAll };
}
