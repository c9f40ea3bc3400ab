// Whether a planned run may be split (issue 42): its one input's video cut at keyframes into parts,
// each part encoded on its own (by any worker), the parts joined with the concat demuxer and
// -c copy, the audio encoded or copied once, whole. Judged from the plan alone: the result must be
// the frames a whole run makes, so every option that changes which frames are read, their timing
// or their number, and every filter that is not frame-local, keeps the run whole. What only the
// probe tells (the input's duration, one video stream, enough keyframes) the executor checks.
import { codecFor, defaultEncoder } from '../catalogue/lookup.js';
import { extensionOf } from '../file-name.js';
import { parseFilterArgs } from '../filtergraph/parse-args.js';
import { parseFilterGraph } from '../filtergraph/parse-graph.js';
import { tokenizeOptions, type RawOption } from '../options/read-options.js';
import { frameLocalProblem } from '../verdicts/frame-local.js';
import type { PlannedOutput, TaskPlan } from './types.js';

export type SplitVerdict =
  /** input: index into plan.inputs of the one media input whose video is split. */
  | { split: true; input: number }
  /** reason: a short sentence for a job log or the docs ("the video filter fade is not frame-local ..."). */
  | { split: false; reason: string };

/** Muxers the join step writes by stream copy of the concatenated parts (and the audio). */
export const SPLIT_MUXERS: ReadonlySet<string> = new Set(['mp4', 'mov', 'matroska', 'webm', 'mpegts', 'hls', 'dash']);

/** Video encoders whose parts, each started at a keyframe, join into one stream by -c copy. */
export const SPLIT_VIDEO_ENCODERS: ReadonlySet<string> = new Set([
  'libx264',
  'libx265',
  'libvpx',
  'libvpx-vp9',
  'libaom-av1',
  'libsvtav1',
  'mpeg4',
  'mpeg2video',
]);

/** Input options that change which frames are read or their timing (by the name ffmpeg reads). */
const INPUT_TIMING: Readonly<Record<string, string>> = {
  ss: 'seeks into the input',
  sseof: 'seeks into the input',
  t: 'bounds how much of the input is read',
  to: 'bounds how much of the input is read',
  itsoffset: "shifts the input's timestamps",
  itsscale: "scales the input's timestamps",
  seek_timestamp: 'changes how the input is sought',
  stream_loop: 'loops the input',
  loop: 'loops the input',
  ignore_loop: 'loops the input',
  re: 'paces the reading',
  readrate: 'paces the reading',
  r: "forces the input's frame rate",
  framerate: "forces the input's frame rate",
  discard: 'discards input packets',
  skip_frame: 'skips input frames',
  fflags: 'changes how packets and timestamps are read',
  seek2any: 'changes how the input is sought',
  use_wallclock_as_timestamps: "replaces the input's timestamps",
  ignore_editlist: "changes the input's timestamps",
  skip_initial_bytes: 'skips part of the input',
  vn: 'drops the video',
};

/** Output options that change the frames' timing or number (or the output's length or size). */
const OUTPUT_TIMING: Readonly<Record<string, string>> = {
  ss: 'starts the output later',
  t: "bounds the output's duration",
  to: "bounds the output's duration",
  fs: "bounds the output's size",
  frames: 'bounds the number of frames',
  shortest: 'ends the output with its shortest stream',
  r: 'changes the frame rate',
  fpsmax: 'changes the frame rate',
  fps_mode: 'drops or duplicates frames',
  target: 'sets the frame rate and other options',
};

/** Global options (in an input's or the output's options) that change timestamps or drop frames. */
const GLOBAL_TIMING: Readonly<Record<string, string>> = {
  copyts: 'keeps the input timestamps',
  start_at_zero: 'keeps the input timestamps',
  vsync: 'drops or duplicates frames',
  frame_drop_threshold: 'drops frames',
};

/** Encoder parameter strings (key=value:key=value) that may ask for a multi-pass encode. */
const ENCODER_PARAMS: ReadonlySet<string> = new Set([
  'x264-params',
  'x264opts',
  'x265-params',
  'svtav1-params',
  'aom-params',
  'rav1e-params',
]);

/** swscale dither modes that need no earlier frame (the automatic choice diffuses errors only into formats no listed encoder takes). */
const STATELESS_DITHER: ReadonlySet<string> = new Set(['auto', 'bayer', 'a_dither', 'x_dither']);

const FILTER_COMPLEX = 'filter_complex is not split yet';

/** How a stream specifier meets the output's one video stream: it selects it, it does not, or the plan cannot tell. */
function videoReach(spec: string | null): 'video' | 'other' | 'unknown' {
  if (spec === null || /^[vV](?::0)?$/.test(spec)) return 'video';
  if (/^(?:[vV]:\d+|[asdt](?::\d+)?)$/.test(spec)) return 'other';
  return 'unknown';
}

const no = (reason: string): SplitVerdict => ({ split: false, reason });

/** Whether the plan's run may be split at the input's keyframes, judged from the plan alone. */
export function splitVerdict(plan: TaskPlan): SplitVerdict {
  if (plan.outputs.length !== 1) return no(`the task has ${plan.outputs.length} outputs; only a task with one output is split`);
  const output = plan.outputs[0]!;
  if (output.kind === 'numbered') return no('the output is numbered images (one file per frame), which are not split');
  if (output.kind === 'report') return no('the output is an analysis report (-f null), which is not split');
  if (!SPLIT_MUXERS.has(output.muxer)) {
    return no(`the ${output.muxer} muxer is not one the parts are joined into (${[...SPLIT_MUXERS].join(', ')})`);
  }

  const grouped = plan.inputs.find((i) => i.kind === 'sequence' || i.kind === 'concat');
  if (grouped)
    return no(`input ${grouped.index} is ${grouped.kind === 'sequence' ? 'an image sequence' : 'a concat list'}, which is not split`);
  const generated = plan.inputs.find((i) => i.kind === 'generated');
  if (generated) return no(`input ${generated.index} is generated (-f lavfi), which is not split`);
  const media = plan.inputs.filter((i) => i.kind === 'media');
  if (media.length !== 1) return no(`the task has ${media.length} media inputs; only a task with one is split`);
  if (plan.filterComplex !== undefined) return no(FILTER_COMPLEX);
  const input = media[0]!;

  for (const o of tokenizeOptions(input.args, `task.inputs[${input.index}].options`)) {
    const why = Object.hasOwn(INPUT_TIMING, o.name) ? INPUT_TIMING[o.name] : inputQuirk(o);
    if (why) return no(`the input option ${o.token} ${why}`);
    const global = globalProblem(o);
    if (global) return no(global);
  }

  const options = tokenizeOptions(output.args, `task.outputs[${output.index}].options`);
  const problem = outputProblem(options) ?? videoProblem(output, options) ?? twoPassProblem(options) ?? filterProblem(options);
  return problem ? no(problem) : { split: true, input: plan.inputs.indexOf(input) };
}

/** Input options that only keep the run whole with some values. */
function inputQuirk(o: RawOption): string | undefined {
  if (o.name === 'accurate_seek' && o.cli?.negated) return 'makes seeking inexact';
  return undefined;
}

function globalProblem(o: RawOption): string | undefined {
  if (o.cli && o.name === 'filter_complex') return FILTER_COMPLEX;
  if (o.cli && !o.cli.negated && Object.hasOwn(GLOBAL_TIMING, o.name)) return `the option ${o.token} ${GLOBAL_TIMING[o.name]}`;
  return undefined;
}

/** Options of the output that change timing or frame count, and stream selections the split run does not reproduce. */
function outputProblem(options: readonly RawOption[]): string | undefined {
  for (const o of options) {
    if (!o.cli) continue;
    const global = globalProblem(o);
    if (global) return global;
    if (Object.hasOwn(OUTPUT_TIMING, o.name) && !o.cli.negated) return `the output option ${o.token} ${OUTPUT_TIMING[o.name]}`;
    if (o.name === 'force_key_frames' && o.value !== 'source') {
      return `the output option ${o.token} ${o.value} places keyframes by the output's time, which each part counts from its own start`;
    }
    if (o.name === 'bsf' && videoReach(o.spec) !== 'other') return `the output option ${o.token} applies a bitstream filter to the video`;
  }
  // swscale's error diffusion carries its error from frame to frame (verdicts/frame-local.ts).
  const dither = options.find((o) => !o.cli && o.name === 'sws_dither' && !STATELESS_DITHER.has(o.value ?? ''));
  if (dither) return `the output option ${dither.token} ${dither.value} dithers with state across frames`;
  let videoMaps = 0;
  for (const o of options) {
    if (o.name !== 'map' || !o.cli) continue;
    const m = /^(-?)(\d+)(?::([^?]+))?\??$/.exec(o.value ?? '');
    if (!m) return `the output's -map ${o.value ?? ''} selects a filter graph's output; ${FILTER_COMPLEX}`;
    const spec = m[3] ?? null;
    const negative = m[1] === '-';
    const reach = videoReach(spec);
    const audioOrVideo = spec === null || /^(?:[vV](?::0)?|a(?::\d+)?)$/.test(spec);
    if (negative ? reach !== 'other' : !audioOrVideo) {
      return `the output's -map ${o.value} selects streams the split run does not carry (it splits the video and keeps the audio whole; map by type: 0:v, 0:a)`;
    }
    if (!negative && reach === 'video') videoMaps++;
  }
  if (videoMaps > 1) return `the output takes the video ${videoMaps} times (-map)`;
  if (videoMaps === 0 && options.some((o) => o.name === 'map' && o.cli && !o.value?.startsWith('-'))) {
    return `the output's -map selects no video, so there is nothing to split`;
  }
  return undefined;
}

/** The output must re-encode video with an encoder whose parts join by stream copy. */
function videoProblem(output: PlannedOutput, options: readonly RawOption[]): string | undefined {
  if (options.some((o) => o.name === 'vn' && o.cli && !o.cli.negated)) return 'the output has no video (-vn), so there is nothing to split';
  let chosen: string | undefined;
  for (const o of options) {
    if (o.name !== 'c' || !o.cli || o.value === undefined) continue;
    const reach = videoReach(o.spec);
    if (reach === 'unknown') return `the output option ${o.token} names streams by index or property; name them by type (-c:v) to split`;
    if (reach === 'video') chosen = o.value;
  }
  if (chosen === 'copy') return 'the output copies the video (-c:v copy), so there is nothing to gain';
  const encoder =
    chosen === undefined ? defaultEncoder(output.muxer, extensionOf(output.fileName), 'video') : codecFor('encoder', chosen)?.name;
  if (encoder === undefined) return 'the output has no video encoder, so there is nothing to split';
  if (!SPLIT_VIDEO_ENCODERS.has(encoder)) {
    return `the video encoder ${encoder} is not one whose parts are joined (${[...SPLIT_VIDEO_ENCODERS].join(', ')})`;
  }
  return undefined;
}

/** A rate control that needs a first pass over the whole video cannot run part by part. */
function twoPassProblem(options: readonly RawOption[]): string | undefined {
  const twoPass = (what: string) => `two-pass encoding (${what}) needs a first pass over the whole video`;
  for (const o of options) {
    if (o.cli && (o.name === 'pass' || o.name === 'passlogfile')) return twoPass(o.token);
    if (!o.cli && o.name === 'flags' && /pass[12]/.test(o.value ?? '')) return twoPass(`${o.token} ${o.value}`);
    if (!o.cli && ENCODER_PARAMS.has(o.name)) {
      for (const pair of (o.value ?? '').split(/[:,]/)) {
        const [key = '', value] = pair.split('=');
        if (key === 'pass' || key === 'stats' || (key === 'passes' && value !== '1')) return twoPass(`${key}= in ${o.token}`);
      }
    }
  }
  return undefined;
}

/** Every video filter (-vf, -filter:v, -filter) must be frame-local. */
function filterProblem(options: readonly RawOption[]): string | undefined {
  for (const o of options) {
    if (o.name !== 'filter' || !o.cli || videoReach(o.spec) === 'other') continue;
    let graph;
    try {
      graph = parseFilterGraph(o.value ?? '');
    } catch {
      return `the filter graph of ${o.token} could not be read`;
    }
    for (const f of graph.filters) {
      let args;
      try {
        args = parseFilterArgs(f.args ?? '');
      } catch {
        return `the arguments of the video filter ${f.name} could not be read`;
      }
      const problem = frameLocalProblem(f.name, args);
      if (problem) return problem;
    }
  }
  return undefined;
}
