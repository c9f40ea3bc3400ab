// The exact argv given to ffmpeg and ffprobe. The service fixes everything around the task's own
// options (which the policy has checked): global flags, how each input is opened (protocol and
// format whitelists, the forced demuxer, its pinned options), and each output's target.
import { isAbsolute } from 'node:path';
import { allowedDemuxer, PROBE_FORMAT_WHITELIST, SERVICE_BUILT_DEMUXERS, type AllowedDemuxer } from './demuxers.js';
import { FfmpegErrors } from './errors.js';
import { LONG_NAMES_DIR } from './disk-names.js';

/** An input as the probe endpoint opens it: one staged file and the demuxer the probe accepted. */
export interface FfmpegInput {
  /** Relative to the work directory, e.g. "in/0". */
  path: string;
  /** An allowed demuxer, as `probeInput` reported it (e.g. "mov"). */
  demuxer: string;
}

/** A staged input of a task, ready to open. */
export interface OpenInput {
  /** Relative to the work directory: in/0, in/1/img_%03d.png (a sequence), in/2/list.ffconcat. */
  path: string;
  /** The demuxer to force (-f). */
  demuxer: string;
  /** Demuxers the input may use, comma-separated: itself, and a concat list's entries'. */
  whitelist?: string;
  /** The service's options for this input (-start_number of a sequence), before the task's. */
  service?: readonly string[];
  /** The task's checked input options. */
  args: readonly string[];
  /** Set by staging for what it built itself: a concat list it rewrote, an image sequence it staged, a checked graph. */
  built?: 'concat' | 'image2' | 'lavfi';
  /** Generated inputs (built lavfi): the checked filter graph ffmpeg opens instead of a file. */
  graph?: string;
  /** Stream types the probe found (video, audio, ...): checkShortestStreams reads them. */
  streams?: readonly string[];
  /** Its length as staged, before its options cut it, and its video rate: progress plans with them (planned-duration.ts). */
  durationSec?: number;
  fps?: number;
}

export interface FfmpegOutput {
  /** Checked output options (and the service's own for the output's kind). */
  args: readonly string[];
  /** File name inside out/ (a numbered pattern such as thumb_%03d.png, or a playlist). */
  fileName: string;
}

/** The directory, relative to the work directory, that outputs are written into. */
export const OUT_DIR = 'out';

/**
 * Leading global flags. -nostdin: never read the terminal. -n: never overwrite (the directory is
 * fresh; a clash is a bug). -progress pipe:1: machine-readable progress on stdout (its own stream,
 * not subject to the per-file whitelists below; no output may use stdout, every output is a
 * `file:` path). Runs with report outputs log at info level with the level on each line, so the
 * runner can keep the filters' report lines apart from errors.
 */
export function ffmpegGlobalFlags(reports = false): string[] {
  return ['-nostdin', '-hide_banner', '-nostats', '-loglevel', reports ? 'level+info' : 'error', '-progress', 'pipe:1', '-n'];
}

/** Global flags of every ffprobe run. */
export const FFPROBE_GLOBAL_FLAGS: readonly string[] = ['-hide_banner', '-loglevel', 'error'];

/**
 * `-protocol_whitelist` is a per-file option in ffmpeg: given once it would only cover the first
 * input. So it is repeated before every input and every output (muxers that open more files, such
 * as image2 patterns and HLS segments, inherit it).
 */
const FILE_ONLY = ['-protocol_whitelist', 'file'] as const;

function demuxerOf(name: string, path: string): AllowedDemuxer {
  const demuxer = allowedDemuxer(name);
  if (!demuxer) throw FfmpegErrors.inputRefused(path, `the ${name} format is not accepted`);
  return demuxer;
}

/**
 * The options that open one input: only the `file` protocol, exactly the chosen demuxer (forced,
 * so ffmpeg cannot re-detect something else) and no other nested demuxer, the service's options,
 * the task's, then the demuxer's pinned options (last, so nothing overrides them), and a `file:`
 * URL so a name can never be read as a protocol or an option.
 */
export function inputArgs(input: OpenInput): string[] {
  const demuxer = demuxerOf(input.demuxer, input.path);
  // concat and image2 open other files: only ever for lists and sequences the service staged.
  if (SERVICE_BUILT_DEMUXERS.has(demuxer.name) && input.built !== demuxer.name) {
    throw FfmpegErrors.inputRefused(input.path, `the ${demuxer.name} format is not accepted`);
  }
  if (demuxer.name === 'lavfi') {
    // The graph is the input: the policy checked it (no filter in it opens a file or the network).
    if (input.graph === undefined) throw FfmpegErrors.inputRefused('a generated input', 'it has no graph');
    return [...FILE_ONLY, '-format_whitelist', demuxer.names, '-f', demuxer.name, ...input.args, '-i', input.graph];
  }
  assertRelativePath(input.path);
  return [
    ...FILE_ONLY,
    '-format_whitelist',
    input.whitelist ?? demuxer.names,
    '-f',
    demuxer.name,
    ...(input.service ?? []),
    ...input.args,
    ...demuxer.pinned,
    '-i',
    `file:${input.path}`,
  ];
}

/** The options of one output followed by its `file:out/<name>` target. */
export function outputArgs(output: FfmpegOutput): string[] {
  assertOutputName(output.fileName);
  return [...FILE_ONLY, ...output.args, `file:${OUT_DIR}/${output.fileName}`];
}

export interface FfmpegCommand {
  inputs: readonly OpenInput[];
  /** The task's filter_complex (canonical), once, before the outputs. */
  filterComplex?: string;
  outputs: readonly FfmpegOutput[];
  /** Log at info level for the filters' report lines. */
  reports?: boolean;
}

export function ffmpegArgv(cmd: FfmpegCommand): string[] {
  if (cmd.inputs.length === 0 || cmd.outputs.length === 0) throw new TypeError('ffmpeg needs at least one input and one output');
  return [
    ...ffmpegGlobalFlags(cmd.reports),
    ...cmd.inputs.flatMap(inputArgs),
    ...(cmd.filterComplex === undefined ? [] : ['-filter_complex', cmd.filterComplex]),
    ...cmd.outputs.flatMap(outputArgs),
  ];
}

/** ffprobe on an input whose demuxer is known (the probe endpoint); `args` are validated -show_* etc. */
export function ffprobeArgv(input: FfmpegInput, args: string[]): string[] {
  const opening = inputArgs({ path: input.path, demuxer: input.demuxer, args: [] });
  const target = opening.slice(-2); // ['-i', 'file:...']
  return [...FFPROBE_GLOBAL_FLAGS, ...opening.slice(0, -2), '-print_format', 'json', ...args, ...target];
}

/**
 * ffprobe on an upload of unknown type: detection runs over the data only, and the
 * `-format_whitelist` stops ffprobe before any demuxer outside the allow-list starts reading (an
 * HLS or concat demuxer opens the files it lists while reading its header). A format the task
 * named (-f rawvideo with its -video_size) is forced instead of detected.
 */
export function detectArgv(fileName: string, format?: { name: string; args: readonly string[] }): string[] {
  if (!isSingleName(fileName)) throw new TypeError(`not a file name: ${JSON.stringify(fileName)}`);
  const forced = format ? demuxerOf(format.name, fileName) : undefined;
  return [
    ...FFPROBE_GLOBAL_FLAGS,
    ...FILE_ONLY,
    '-format_whitelist',
    forced ? forced.names : PROBE_FORMAT_WHITELIST,
    ...(forced ? ['-f', forced.name, ...format!.args, ...forced.pinned] : []),
    '-print_format',
    'json',
    '-show_format',
    '-show_streams',
    '-i',
    `file:${fileName}`,
  ];
}

function assertRelativePath(path: string): void {
  const bad =
    path === '' || isAbsolute(path) || path.split(/[\\/]/).some((part) => part === '..' || part === '') || /[\x00-\x1f\x7f]/.test(path);
  if (bad) throw new TypeError(`input path must be relative to the work directory: ${JSON.stringify(path)}`);
}

/** A single name: no directories, no control characters, not "." or "..". */
function isSingleName(name: string): boolean {
  return !(name === '' || name === '.' || name === '..' || name.length > 255 || /[/\\\x00-\x1f\x7f]/.test(name));
}

/** A name in out/, or one of the service's for a long name (disk-names.ts). */
function assertOutputName(name: string): void {
  const own = name.startsWith(`${LONG_NAMES_DIR}/`) ? name.slice(LONG_NAMES_DIR.length + 1) : name;
  if (!isSingleName(own)) throw FfmpegErrors.badOutputName(name);
}
