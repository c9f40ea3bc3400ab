// A run split at the input's keyframes: each part's video encoded on its own (concurrently, as
// `schedule` allows), then one join that copies the parts' video and does the rest (audio,
// subtitles, the muxer and its options) as the bare run would. Falls back to one whole run when
// the input does not lend itself to it. See parts.ts for where it cuts, split-args.ts for the options.
import { link, mkdir, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import { dirname, isAbsolute, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Errors } from '@media/platform';
import type { OpenInput } from '../argv.js';
import { abortReason } from '../errors.js';
import type { FfmpegProgress } from '../progress.js';
import { runFfmpeg, type RunFfmpegOptions, type RunOutput, type RunResult } from '../run-ffmpeg.js';
import { ffmpegBin, ffmpegVersion, SPLIT_MIN_FFMPEG, splitSupported } from './ffmpeg-version.js';
import { SIDE_DIR } from '../../policy/plan/side-files.js';
import { planParts, type Part } from './parts.js';
import { probeLayout, probeVideoPackets } from './probe-video.js';
import { frameRateOption, joinArgs, mapProblem, PART_DEMUXERS, partArgs } from './split-args.js';

export interface SplitRunOptions extends RunFfmpegOptions {
  /** Index into `inputs` of the one media input whose video is split. */
  splitInput: number;
  /** Target part duration in seconds; parts start at keyframes and are never shorter than a GOP. */
  partSec: number;
  /** Least input duration (s) worth splitting; shorter inputs run whole (result.parts = 1). */
  minInputSec: number;
  /** Runs one unit of work (a part's encode) when a slot is free; default: at once.
   *  The executor hands every unit to it at once and awaits them all, so it sets the parallelism. */
  schedule?: <T>(work: () => Promise<T>) => Promise<T>;
  /**
   * Runs the parts instead of `schedule` (Jobs: some parts encoded by other replicas, their files
   * fetched into place). Resolves once every part's file is at `partFile(i)`; the join follows.
   * It settles only once none of the encodes it started is still running.
   */
  distribute?: (ctx: SplitContext) => Promise<void>;
}

/** What a `distribute` callback is given: the parts, and how to encode one here. */
export interface SplitContext {
  parts: readonly Part[];
  /** The split input's first timestamp: part seeks are relative to it (PartGeometry.inputStartSec). */
  inputStartSec: number;
  /** Encodes part `i` here (into partFile(i)), stopped with the run. */
  encode(i: number): Promise<RunResult>;
  /** Where part `i`'s file must be before the join: a part encoded elsewhere is written here. */
  partFile(i: number): string;
  /** A part encoded elsewhere has done `outTimeSec` seconds of its span (the job's progress). */
  progress(i: number, outTimeSec: number): void;
  /** A part encoded elsewhere started: the run's time counts from the first part's start. */
  started(): void;
  /** Aborted when the run stops: the caller's abort, the time limit, or a failed part. */
  signal: AbortSignal;
  /** Stops the run (every part encoding here) with `reason`. */
  abort(reason: unknown): void;
}

/** One part as another process encodes it (encodeSplitPart): where it is, in the input's video. */
export interface PartGeometry {
  part: Part;
  index: number;
  /** The last part runs to the input's end (no frame count). */
  last: boolean;
  inputStartSec: number;
}

export interface SplitRunResult extends RunResult {
  /** How many parts the video was encoded in (1: it ran whole, as runFfmpeg). */
  parts: number;
  /** When parts is 1: why (input shorter than minInputSec, no video stream, too few keyframes...). */
  wholeReason?: string;
}

/** The directory (in the work directory) the parts are written under; removed when the run ends. */
export const SPLIT_DIR = 'split-parts';
const PART_FILE = 'part.mkv';
/**
 * Demuxers whose input seek lands on the keyframe asked for, which each part relies on. Not
 * Matroska/WebM: with B-frames, ffmpeg 5.1 moves its seek target 3/23 s earlier (no
 * AVFMT_SEEK_TO_PTS), so a part would start a GOP early and end one short.
 */
const SEEK_EXACT_DEMUXERS: ReadonlySet<string> = new Set(['mov', 'mpegts']);
/** How far the first video frame may lie from the input's start (timestamp rounding) for a split. */
const LEAD_TOLERANCE_SEC = 0.001;

type BaseOptions = Omit<SplitRunOptions, 'splitInput' | 'partSec' | 'minInputSec' | 'schedule' | 'distribute'>;

export async function runFfmpegSplit(opts: SplitRunOptions): Promise<SplitRunResult> {
  if (!isAbsolute(opts.workDir)) throw new TypeError('workDir must be an absolute path');
  const { splitInput, partSec, minInputSec, schedule, distribute, ...base } = opts;
  const input = opts.inputs[splitInput];
  if (!input) throw new RangeError(`splitInput ${splitInput} is not an input of the run`);
  const deadline = Date.now() + opts.timeoutMs;
  const whole = async (reason: string): Promise<SplitRunResult> => ({
    ...(await runFfmpeg({ ...base, timeoutMs: timeLeft(deadline) })),
    parts: 1,
    wholeReason: reason,
  });
  const output = opts.outputs[0];
  if (opts.outputs.length !== 1 || !output) return whole('the run has more than one output');
  if (opts.filterComplex !== undefined) return whole('filter_complex is not split');
  if (input.built) return whole('the input is a list or a sequence');
  const maps = mapProblem(output.args, splitInput);
  if (maps) return whole(maps);
  const rate = frameRateOption(output.args);
  if (rate) return whole(`the output sets its frame rate (${rate})`);
  const version = await ffmpegVersion(await ffmpegBin(opts), opts.workDir, opts.logger);
  if (!splitSupported(version)) return whole(`the ffmpeg in use is older than ${SPLIT_MIN_FFMPEG.major}.${SPLIT_MIN_FFMPEG.minor}`);

  const probe = {
    workDir: opts.workDir,
    timeoutMs: timeLeft(deadline),
    ...(opts.signal ? { signal: opts.signal } : {}),
    ...(opts.logger ? { logger: opts.logger } : {}),
    ...(opts.forkServers ? { forkServers: opts.forkServers } : {}),
  };
  const opened = { path: input.path, demuxer: input.demuxer };
  // A probe that fails (its output past the cap on a very long input, say) runs the task whole;
  // an abort or the time limit still ends the run.
  const unread = (err: unknown) => {
    if (opts.signal?.aborted || Date.now() >= deadline) throw err;
    opts.logger?.warn({ err }, 'the keyframes could not be read: the run is not split');
    return null;
  };
  const layout = await probeLayout(probe, opened).catch(unread);
  if (!layout) return whole("the input's streams could not be read for a split");
  if (layout.videoStreams !== 1)
    return whole(layout.videoStreams === 0 ? 'the input has no video stream' : `the input has ${layout.videoStreams} video streams`);
  const demuxer = input.demuxer.split(',')[0]!;
  if (!SEEK_EXACT_DEMUXERS.has(demuxer))
    return whole(`inputs read by the ${demuxer} demuxer are not split: a seek may land on an earlier keyframe`);
  const inputSec = layout.durationSec ?? opts.durationSec;
  if (inputSec === undefined || inputSec < minInputSec) return whole(`the input is shorter than ${minInputSec} s`);
  const packets = await probeVideoPackets({ ...probe, timeoutMs: timeLeft(deadline) }, opened).catch(unread);
  if (packets === null) return whole("the input's keyframes could not be read");
  if (!packets) return whole('a video packet has no timestamp');
  const plan = planParts(packets, partSec);
  if (!plan.parts) return whole(plan.reason);
  // A video that starts after the input's other streams: ffmpeg moves, repeats or drops its first
  // frames onto its output's frame grid (differently for constant and variable frame rate muxers);
  // parts encoded on their own would not match that, so such an input runs whole.
  const lead = plan.parts[0]!.startSec - layout.startSec;
  if (Math.abs(lead) > LEAD_TOLERANCE_SEC) return whole(`the video starts ${lead.toFixed(3)} s after the input's other streams`);
  return runParts(base, {
    input,
    index: splitInput,
    output,
    parts: plan.parts,
    inputStartSec: layout.startSec,
    deadline,
    schedule,
    distribute,
  });
}

interface SplitJob {
  input: OpenInput;
  index: number;
  output: RunOutput;
  parts: Part[];
  inputStartSec: number;
  deadline: number;
  schedule: SplitRunOptions['schedule'];
  distribute: SplitRunOptions['distribute'];
}

function timeLeft(deadline: number): number {
  const left = deadline - Date.now();
  if (left <= 0) throw Errors.timedOut();
  return left;
}

const sec = (n: number) => n.toFixed(6);

async function runParts(base: BaseOptions, job: SplitJob): Promise<SplitRunResult> {
  const { parts, deadline } = job;
  const schedule = job.schedule ?? (<T>(work: () => Promise<T>) => work());
  if (base.signal?.aborted) throw abortReason(base.signal);
  // One stop for every part: the caller's abort, the time limit, or the first part that fails.
  const stop = new AbortController();
  const onAbort = () => stop.abort(abortReason(base.signal!));
  base.signal?.addEventListener('abort', onAbort, { once: true });
  const timer = setTimeout(() => stop.abort(Errors.timedOut()), Math.max(0, deadline - Date.now()));
  const splitDir = join(base.workDir, SPLIT_DIR);
  const progress = aggregateProgress(base, parts);
  let firstSpawn: number | undefined;
  const spawned = (pid: number) => {
    firstSpawn ??= performance.now();
    base.onSpawn?.(pid);
  };
  try {
    await rm(splitDir, { recursive: true, force: true }); // a crashed earlier attempt's parts
    await mkdir(splitDir);
    const hooks = (i: number) => ({ signal: stop.signal, onSpawn: spawned, onProgress: (p: FfmpegProgress) => progress.part(i, p) });
    const encode = async (i: number) => {
      if (stop.signal.aborted) throw stop.signal.reason;
      return runPart(base, partOf(job, i), join(splitDir, `p${i}`), job.deadline, hooks(i));
    };
    let failure: { err: unknown } | undefined;
    const failed = (err: unknown) => {
      failure ??= { err };
      stop.abort(err); // the other parts stop too
    };
    if (job.distribute)
      await job
        .distribute({
          parts,
          inputStartSec: job.inputStartSec,
          encode,
          partFile: (i) => join(splitDir, partFilePath(i)),
          progress: (i, outTimeSec) => progress.part(i, { outTimeSec, frame: 0, fps: 0, speed: 0, done: false }),
          started: () => (firstSpawn ??= performance.now()),
          signal: stop.signal,
          abort: (reason) => stop.abort(reason),
        })
        .catch(failed);
    else await Promise.all(parts.map((_, i) => schedule(() => encode(i)).catch(failed)));
    if (failure) throw failure.err;

    await writeFile(join(splitDir, 'parts.ffconcat'), concatList(parts));
    const concat: OpenInput = {
      path: `${SPLIT_DIR}/parts.ffconcat`,
      demuxer: 'concat',
      built: 'concat',
      whitelist: `concat,${PART_DEMUXERS}`,
      args: [],
      streams: ['video'],
    };
    let joinSpawn = 0;
    const joined = await runFfmpeg({
      ...base,
      // The input's own video is left out (input -vn): the parts' takes its place.
      inputs: [...base.inputs.map((inp, k) => (k === job.index ? { ...inp, args: [...inp.args, '-vn'] } : inp)), concat],
      outputs: [{ ...job.output, args: joinArgs(job.output.args, job.index, base.inputs.length) }],
      durationSec: progress.totalSec,
      timeoutMs: timeLeft(deadline),
      signal: stop.signal,
      onSpawn: (pid) => {
        joinSpawn = performance.now();
        spawned(pid);
      },
      onProgress: (p) => {
        if (p.done) progress.finish(p);
      },
    });
    return { ...joined, durationMs: Math.round(joinSpawn + joined.durationMs - (firstSpawn ?? joinSpawn)), parts: parts.length };
  } finally {
    clearTimeout(timer);
    base.signal?.removeEventListener('abort', onAbort);
    await rm(splitDir, { recursive: true, force: true });
  }
}

/** Part `i` of a split job, as encodeSplitPart takes it. */
function partOf(job: SplitJob, i: number): PartForRun {
  return {
    input: job.input,
    splitInput: job.index,
    output: job.output,
    part: job.parts[i]!,
    index: i,
    last: i === job.parts.length - 1,
    inputStartSec: job.inputStartSec,
  };
}

interface PartForRun extends PartGeometry {
  input: OpenInput;
  splitInput: number;
  output: RunOutput;
}

/** Where part i's file is, under the split directory. */
const partFilePath = (i: number) => `p${i}/out/${PART_FILE}`;

/**
 * One part encoded by a process that did not plan the split (another Jobs replica): `opts` are the
 * whole run's options over inputs staged in `opts.workDir`, as the planning process has them.
 * Resolves with the part file's absolute path (under workDir's split directory).
 */
export async function encodeSplitPart(
  opts: RunFfmpegOptions & { splitInput: number } & PartGeometry,
): Promise<{ path: string; result: RunResult }> {
  const { splitInput, part, index, last, inputStartSec, ...base } = opts;
  const input = base.inputs[splitInput];
  const output = base.outputs[0];
  if (!input || !output) throw new RangeError(`input ${splitInput} or output 0 is not in the run`);
  const partDir = join(base.workDir, SPLIT_DIR, `p${index}`);
  const result = await runPart(
    base,
    { input, splitInput, output, part, index, last, inputStartSec },
    partDir,
    Date.now() + base.timeoutMs,
    {
      signal: base.signal ?? new AbortController().signal,
      onSpawn: base.onSpawn ?? (() => {}),
      onProgress: base.onProgress ?? (() => {}),
    },
  );
  return { path: join(base.workDir, SPLIT_DIR, partFilePath(index)), result };
}

/** One part's encode, in a work directory of its own that holds a link to the input. */
async function runPart(
  base: BaseOptions,
  p: PartForRun,
  partDir: string,
  deadline: number,
  hooks: Required<Pick<RunFfmpegOptions, 'signal' | 'onSpawn' | 'onProgress'>>,
): Promise<RunResult> {
  const linked = join(partDir, p.input.path);
  await mkdir(dirname(linked), { recursive: true });
  const source = join(base.workDir, p.input.path);
  await link(source, linked).catch(() => symlink(source, linked));
  await linkSideFiles(base.workDir, partDir);
  // Input seek to the part's keyframe (exact there); the frame count ends it where the next begins.
  // -noaccurate_seek: at a keyframe it changes no frame, and the accurate seek's trim ahead of the
  // filters would move the automatic format conversion before them (lut, lutrgb round otherwise).
  const seek = p.index === 0 ? [] : ['-noaccurate_seek', '-ss', sec(p.part.startSec - p.inputStartSec)];
  return runFfmpeg({
    ...base,
    workDir: partDir,
    inputs: [{ ...p.input, args: [...p.input.args, ...seek] }],
    outputs: [{ kind: 'file', fileName: PART_FILE, args: partArgs(p.output.args, p.last ? undefined : p.part.frames, p.splitInput) }],
    durationSec: p.part.endSec - p.part.startSec,
    timeoutMs: timeLeft(deadline),
    progressIntervalMs: 250,
    ...hooks,
  });
}

/**
 * The side files the task's filters read (fonts, LUTs, text: side/<i>.<ext>, by relative path),
 * linked into the part's directory, which is the part's ffmpeg's cwd.
 */
async function linkSideFiles(workDir: string, partDir: string): Promise<void> {
  const names = await readdir(join(workDir, SIDE_DIR)).catch(() => [] as string[]);
  if (names.length === 0) return;
  await mkdir(join(partDir, SIDE_DIR), { recursive: true });
  for (const name of names) {
    const source = join(workDir, SIDE_DIR, name);
    const target = join(partDir, SIDE_DIR, name);
    await link(source, target).catch(() => symlink(source, target));
  }
}

/** The concat demuxer's list: each part for exactly its span, so the next starts where the bare run has it. */
function concatList(parts: readonly Part[]): string {
  const lines = ['ffconcat version 1.0'];
  parts.forEach((p, i) => {
    lines.push(`file '${partFilePath(i)}'`);
    if (i < parts.length - 1) lines.push(`duration ${sec(p.endSec - p.startSec)}`);
  });
  return `${lines.join('\n')}\n`;
}

/** The whole run's progress: media time done over all parts, over the video's length. */
function aggregateProgress(base: BaseOptions, parts: readonly Part[]) {
  const spans = parts.map((p) => p.endSec - p.startSec);
  const totalSec = spans.reduce((a, b) => a + b, 0);
  const totalFrames = parts.reduce((a, p) => a + p.frames, 0);
  const doneSec = parts.map(() => 0);
  const doneFrames = parts.map(() => 0);
  const interval = base.progressIntervalMs ?? 1000;
  const started = performance.now();
  let lastEmit = -Infinity;
  const emit = (p: FfmpegProgress) => {
    try {
      base.onProgress?.(p);
    } catch {
      // A failing listener must not break the run.
    }
  };
  return {
    totalSec,
    part(i: number, p: FfmpegProgress) {
      doneSec[i] = Math.min(spans[i]!, p.outTimeSec);
      doneFrames[i] = p.frame;
      const now = performance.now();
      if (!base.onProgress || now - lastEmit < interval) return;
      lastEmit = now;
      const done = doneSec.reduce((a, b) => a + b, 0);
      const elapsed = (now - started) / 1000;
      const speed = elapsed > 0 ? done / elapsed : 0;
      // The join still has to run: 100 % only comes with its end.
      const percent = Math.min(99.9, Math.round((done / totalSec) * 1000) / 10);
      emit({
        outTimeSec: Math.round(done * 1000) / 1000,
        fps: elapsed > 0 ? Math.round((doneFrames.reduce((a, b) => a + b, 0) / elapsed) * 10) / 10 : 0,
        speed: Math.round(speed * 100) / 100,
        frame: doneFrames.reduce((a, b) => a + b, 0),
        percent,
        ...(speed > 0 ? { etaSec: Math.round(((totalSec - done) / speed) * 10) / 10 } : {}),
        done: false,
      });
    },
    finish(p: FfmpegProgress) {
      emit({ ...p, outTimeSec: Math.round(totalSec * 1000) / 1000, frame: totalFrames, percent: 100, etaSec: 0, done: true });
    },
  };
}
