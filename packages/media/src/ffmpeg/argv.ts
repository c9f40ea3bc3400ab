// The exact argv given to ffmpeg and ffprobe. Everything here is fixed by us; only the output
// option tokens come from the task, and the policy layer has already validated them.
import { isAbsolute } from 'node:path';
import { allowedDemuxer, PROBE_FORMAT_WHITELIST } from './demuxers.js';
import { FfmpegErrors } from './errors.js';

export interface FfmpegInput {
  /** Relative to the work directory, e.g. "in/0". */
  path: string;
  /** An allowed demuxer, as `probeInput` reported it (e.g. "mov"). */
  demuxer: string;
}

export interface FfmpegOutput {
  /** Already-validated output option tokens. */
  args: string[];
  /** File name inside out/ (may hold a numbered pattern such as thumb_%03d.png). */
  fileName: string;
}

/** The directory, relative to the work directory, that outputs are written into. */
export const OUT_DIR = 'out';

/**
 * Leading global flags. -nostdin: never read the terminal. -n: never overwrite (the directory is
 * fresh; a clash is a bug). -progress pipe:1: machine-readable progress on stdout (its own
 * stream, not subject to the per-file whitelists below, and no other output may use stdout
 * because every output is a `file:` path).
 */
export const FFMPEG_GLOBAL_FLAGS: readonly string[] = [
  ...['-nostdin', '-hide_banner', '-nostats', '-loglevel', 'error'],
  ...['-progress', 'pipe:1', '-n'],
];

/** Global flags of every ffprobe run. */
export const FFPROBE_GLOBAL_FLAGS: readonly string[] = ['-hide_banner', '-loglevel', 'error'];

/**
 * `-protocol_whitelist` is a per-file option in ffmpeg: given once it would only cover the first
 * input. So it is repeated before every input and every output (muxers that open more files, such
 * as image2 patterns, inherit it).
 */
const FILE_ONLY = ['-protocol_whitelist', 'file'] as const;

/**
 * The options that open one input: only the `file` protocol, exactly the probed demuxer (forced,
 * so ffmpeg cannot re-detect something else) and no other demuxer nested inside it (e.g. a
 * subtitle in an AVI), the demuxer's pinned safe options, and a `file:` URL so a name can never be
 * read as a protocol or an option.
 */
export function inputArgs(input: FfmpegInput): string[] {
  const demuxer = allowedDemuxer(input.demuxer);
  if (!demuxer) throw FfmpegErrors.inputRefused(input.path, `the ${input.demuxer} format is not accepted`);
  assertRelativePath(input.path);
  return [...FILE_ONLY, '-format_whitelist', demuxer.names, '-f', demuxer.name, ...demuxer.pinned, '-i', `file:${input.path}`];
}

/** The options of one output followed by its `file:out/<name>` target. */
export function outputArgs(output: FfmpegOutput): string[] {
  assertOutputName(output.fileName);
  return [...FILE_ONLY, ...output.args, `file:${OUT_DIR}/${output.fileName}`];
}

export function ffmpegArgv(inputs: FfmpegInput[], outputs: FfmpegOutput[]): string[] {
  if (inputs.length === 0 || outputs.length === 0) throw new TypeError('ffmpeg needs at least one input and one output');
  return [...FFMPEG_GLOBAL_FLAGS, ...inputs.flatMap(inputArgs), ...outputs.flatMap(outputArgs)];
}

/** ffprobe on an input whose demuxer is known (the probe endpoint); `args` are validated -show_* etc. */
export function ffprobeArgv(input: FfmpegInput, args: string[]): string[] {
  const opening = inputArgs(input);
  const target = opening.slice(-2); // ['-i', 'file:...']
  return [...FFPROBE_GLOBAL_FLAGS, ...opening.slice(0, -2), '-print_format', 'json', ...args, ...target];
}

/**
 * ffprobe on an upload of unknown type: detection runs over the data only, and the
 * `-format_whitelist` stops ffprobe before any demuxer outside the allow-list starts reading (an
 * HLS or concat demuxer opens the files it lists while reading its header).
 */
export function detectArgv(fileName: string): string[] {
  if (!isSingleName(fileName)) throw new TypeError(`not a file name: ${JSON.stringify(fileName)}`);
  return [
    ...FFPROBE_GLOBAL_FLAGS,
    ...FILE_ONLY,
    '-format_whitelist',
    PROBE_FORMAT_WHITELIST,
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
    path === '' ||
    isAbsolute(path) ||
    path.split(/[\\/]/).some((part) => part === '..' || part === '') ||
    /[\x00-\x1f\x7f]/.test(path);
  if (bad) throw new TypeError(`input path must be relative to the work directory: ${JSON.stringify(path)}`);
}

/** A single name: no directories, no control characters, not "." or "..". */
function isSingleName(name: string): boolean {
  return !(name === '' || name === '.' || name === '..' || name.length > 255 || /[/\\\x00-\x1f\x7f]/.test(name));
}

function assertOutputName(name: string): void {
  if (!isSingleName(name)) throw FfmpegErrors.badOutputName(name);
}
