// How long a run's media will be, for the percent and ETA of its progress (issue 43): ffmpeg's
// out_time is the furthest timestamp written to any output, so the run's planned duration is the
// longest of its outputs'. An output lasts as long as the inputs it maps (the shortest of them with
// -shortest, else the longest), each cut by its own -ss/-sseof/-t/-to (and lengthened by
// -stream_loop n and -itsoffset), then by the output's -ss, -t, -to and -frames (at the output's
// -r, else at its video input's rate unless a video filter may change it). Filters that change a
// stream's length (trim, setpts, concat, loop) are not followed: the inputs they read stand for
// it. Pure: no I/O.
import { parseCliTime, parseVideoRate } from '../policy/values/cli-values.js';
import { cliRule } from '../policy/verdicts/cli-options.js';
import { parseFilterGraph } from '../policy/filtergraph/parse-graph.js';
import type { ConcatList } from '../policy/concat-list.js';

/** An input as the runner opens it: the task's options and what staging learnt of its length. */
export interface TimedInput {
  args: readonly string[];
  /** Its length before its options cut it (the probe's, a sequence's frames at its rate, a concat list's sum). */
  durationSec?: number;
  /** Its video frame rate, when known. */
  fps?: number;
  /** Stream types the probe found: an output without -map takes an input only for a type it keeps. */
  streams?: readonly string[];
}

export interface TimedRun {
  inputs: readonly TimedInput[];
  /** The task's filter_complex, if any (outputs may carry their own -filter_complex in args). */
  filterComplex?: string;
  outputs: ReadonlyArray<{ args: readonly string[] }>;
}

/** ffmpeg's frame rate of an image sequence without -framerate (image2's default). */
export const SEQUENCE_DEFAULT_FPS = 25;

interface Opt {
  name: string;
  spec: string | null;
  negated: boolean;
  value?: string;
}

/**
 * The options as ffmpeg reads them (aliases resolved: -vframes is -frames:v). The args were
 * checked when the task was planned; here only their timing matters, and the last of a repeated
 * option wins, as in ffmpeg.
 */
function readOptions(args: readonly string[]): Opt[] {
  const out: Opt[] = [];
  for (let i = 0; i < args.length; i++) {
    const tok = args[i]!;
    if (!tok.startsWith('-')) continue;
    const body = tok.slice(1);
    const colon = body.indexOf(':');
    const name = colon < 0 ? body : body.slice(0, colon);
    const spec = colon < 0 ? null : body.slice(colon + 1);
    const found = cliRule(name);
    const takesValue = found ? found.rule.value.kind !== 'none' && !found.negated : true;
    const opt: Opt = {
      name: found ? (found.rule.alias?.of ?? found.rule.name) : name,
      spec: found?.rule.alias?.spec ?? spec,
      negated: found?.negated ?? false,
    };
    if (takesValue && i + 1 < args.length) opt.value = args[++i]!;
    out.push(opt);
  }
  return out;
}

const last = (opts: readonly Opt[], name: string, specs: ReadonlyArray<string | null> = [null]): Opt | undefined =>
  opts.findLast((o) => o.name === name && specs.includes(o.spec) && !o.negated);
const time = (o: Opt | undefined) => (o?.value === undefined ? undefined : parseCliTime(o.value));
const VIDEO_SPECS = [null, 'v', 'v:0', 'V'];
/** Output flags that drop a stream type from ffmpeg's own choice of streams. */
const DROPS: Readonly<Record<string, string>> = { vn: 'video', an: 'audio', sn: 'subtitle', dn: 'data' };

/** The rate an input's video is read at: -r or -framerate forces it, else what staging found. */
function inputFps(input: TimedInput, opts: readonly Opt[]): number | undefined {
  const forced = last(opts, 'r', VIDEO_SPECS) ?? last(opts, 'framerate');
  const rate = forced?.value === undefined ? undefined : parseVideoRate(forced.value);
  return rate ?? input.fps;
}

/** Seconds of media an input gives, after its own options; undefined when nothing bounds it that is known. */
export function inputDurationSec(input: TimedInput): number | undefined {
  const opts = readOptions(input.args);
  let full = input.durationSec !== undefined && input.durationSec > 0 ? input.durationSec : undefined;
  const loops = last(opts, 'stream_loop');
  const n = loops?.value === undefined ? 0 : Number(loops.value);
  if (n < 0) full = undefined;
  else if (full !== undefined) full *= n + 1;
  const sseof = time(last(opts, 'sseof'));
  const start = Math.max(0, time(last(opts, 'ss')) ?? (sseof !== undefined && full !== undefined ? full + sseof : 0));
  const t = time(last(opts, 't'));
  const to = time(last(opts, 'to'));
  let end = t !== undefined ? start + t : to; // -t wins over -to
  if (full !== undefined) end = end === undefined ? full : Math.min(end, full);
  if (end === undefined) return undefined;
  const offset = Math.max(0, time(last(opts, 'itsoffset')) ?? 0);
  return Math.max(0, end - start) + offset;
}

/** Input indices a complex graph reads ([0:v], [1]); undefined when it reads any (unlabelled inputs). */
function graphInputs(graphs: readonly string[]): Set<number> | undefined {
  const read = new Set<number>();
  for (const text of graphs) {
    let parsed;
    try {
      parsed = parseFilterGraph(text);
    } catch {
      return undefined;
    }
    for (const f of parsed.filters) {
      for (const label of f.inputs) {
        const m = /^(\d+)/.exec(label);
        if (m) read.add(Number(m[1]));
      }
    }
  }
  return read.size > 0 ? read : undefined;
}

/** Seconds of media one output is planned to hold, or undefined when nothing known bounds it. */
export function outputDurationSec(run: TimedRun, output: { args: readonly string[] }): number | undefined {
  const opts = readOptions(output.args);
  const graphs = [...(run.filterComplex === undefined ? [] : [run.filterComplex])];
  for (const o of opts) if (o.name === 'filter_complex' && o.value !== undefined) graphs.push(o.value);
  const all = run.inputs.map((_, i) => i);
  const mapped = new Set<number>();
  for (const o of opts) {
    if (o.name !== 'map' || o.value === undefined || o.value.startsWith('-')) continue;
    const m = /^(\d+)/.exec(o.value);
    if (m) mapped.add(Number(m[1]));
    else for (const i of graphInputs(graphs) ?? all) mapped.add(i);
  }
  if (mapped.size === 0) {
    // ffmpeg picks the best video and the best audio of all inputs: any input of a type the output keeps.
    const dropped = new Set(Object.entries(DROPS).flatMap(([flag, type]) => (last(opts, flag) ? [type] : [])));
    const keeps = (i: TimedInput) => !i.streams || i.streams.some((s) => Object.values(DROPS).includes(s) && !dropped.has(s));
    for (const i of all) if (keeps(run.inputs[i]!)) mapped.add(i);
  }
  const inputs = [...mapped].filter((i) => i < run.inputs.length);
  const lengths = inputs.map((i) => inputDurationSec(run.inputs[i]!)).filter((d): d is number => d !== undefined);
  const shortest = last(opts, 'shortest') !== undefined;
  let length = lengths.length === 0 ? undefined : shortest ? Math.min(...lengths) : Math.max(...lengths);
  const start = Math.max(0, time(last(opts, 'ss')) ?? 0);
  if (length !== undefined) length = Math.max(0, length - start);
  const bounds: number[] = [];
  const t = time(last(opts, 't'));
  const to = time(last(opts, 'to'));
  if (t !== undefined) bounds.push(t);
  else if (to !== undefined) bounds.push(Math.max(0, to - start));
  const frames = last(opts, 'frames', VIDEO_SPECS)?.value;
  if (frames !== undefined) {
    const rateOpt = last(opts, 'r', VIDEO_SPECS)?.value;
    // A filter may change the rate (fps=1, select): then only the output's -r counts the frames.
    const filtered = graphs.length > 0 || opts.some((o) => o.name === 'filter' && VIDEO_SPECS.includes(o.spec));
    const fps =
      (rateOpt === undefined ? undefined : parseVideoRate(rateOpt)) ??
      (filtered ? undefined : inputs.map((i) => inputFps(run.inputs[i]!, readOptions(run.inputs[i]!.args))).find((r) => r !== undefined));
    if (fps !== undefined && fps > 0) bounds.push(Number(frames) / fps);
  }
  for (const b of bounds) length = length === undefined ? b : Math.min(length, b);
  return length;
}

/** The run's planned duration: its longest output's (ffmpeg's out_time is the furthest of them). */
export function plannedDurationSec(run: TimedRun): number | undefined {
  const lengths = run.outputs.map((o) => outputDurationSec(run, o)).filter((d): d is number => d !== undefined && d > 0);
  return lengths.length > 0 ? Math.max(...lengths) : undefined;
}

/** An image sequence's length and rate: its files at -framerate (or -r), else image2's 25 per second. */
export function sequenceTiming(files: number, args: readonly string[]): { durationSec: number; fps: number } {
  const fps = inputFps({ args, fps: SEQUENCE_DEFAULT_FPS }, readOptions(args)) ?? SEQUENCE_DEFAULT_FPS;
  return { durationSec: files / fps, fps };
}

/**
 * A concat list's length: its entries one after another, each cut by its inpoint/outpoint, else
 * its duration directive, else its file's length (`entrySec`, by entry); undefined when one is unknown.
 */
export function concatDurationSec(list: ConcatList, entrySec: ReadonlyArray<number | undefined>): number | undefined {
  let sum = 0;
  for (const [k, e] of list.entries.entries()) {
    const file = entrySec[k];
    const cut = e.inpoint !== undefined || e.outpoint !== undefined;
    const length = cut ? (e.outpoint ?? file ?? Number.NaN) - (e.inpoint ?? 0) : (e.duration ?? file);
    if (length === undefined || !Number.isFinite(length)) return undefined;
    sum += Math.max(0, length);
  }
  return sum > 0 ? sum : undefined;
}
