// Deciding whether an upload may be opened at all, and with which demuxer. ffprobe detects the
// container from the bytes alone, and `-format_whitelist` stops it before a demuxer outside the
// allow-list reads its header (the moment an HLS or concat demuxer would open the files it names).
import type { ForkServerPool } from '@media/fork-server';
import { stat } from 'node:fs/promises';
import { basename, dirname, resolve } from 'node:path';
import { detectArgv } from './argv.js';
import { resolveBinaries, type WarnLogger } from './binaries.js';
import { allowedDemuxer, refusedStreamCodec } from './demuxers.js';
import { FfmpegErrors } from './errors.js';
import type { SandboxLimits } from './limits.js';
import { runJsonTool } from './run-ffprobe.js';

export interface ProbeInputOptions {
  /** Base for a relative `path` (default: the process cwd). */
  workDir?: string;
  /** The name to use in a refusal (default: the file's base name). */
  displayName?: string;
  /** Default 30 s. */
  timeoutMs?: number;
  signal?: AbortSignal;
  ffprobePath?: string;
  limits?: Partial<SandboxLimits>;
  logger?: WarnLogger;
  /** The owner's fork servers (createForkServers); without them each run starts directly. */
  forkServers?: ForkServerPool;
  /** The demuxer the task named (-f), forced instead of detected, with the task's demuxer options (raw formats need -video_size...). */
  format?: { name: string; args: readonly string[] };
}

export interface ProbedStream {
  index: number;
  /** video, audio, subtitle, data, attachment. */
  type: string;
  codec?: string;
  width?: number;
  height?: number;
  /** Average frame rate, when ffprobe knows it. */
  fps?: number;
  sampleRate?: number;
  channels?: number;
  durationSec?: number;
}

export interface ProbedInput {
  /** The demuxer to open this input with (`-f`), e.g. "mov"; pass it to runFfmpeg/runFfprobe. */
  format: string;
  /** ffprobe's full format_name, e.g. "mov,mp4,m4a,3gp,3g2,mj2". */
  formatName: string;
  formatLongName?: string;
  durationSec?: number;
  bitRate?: number;
  streams: ProbedStream[];
}

const DEFAULT_PROBE_TIMEOUT_MS = 30_000;

/** Probes an upload; throws a 400 DomainError when it is not a media file we accept. */
export async function probeInput(path: string, opts: ProbeInputOptions = {}): Promise<ProbedInput> {
  const file = resolve(opts.workDir ?? process.cwd(), path);
  const name = opts.displayName ?? basename(file);
  const info = await stat(file); // a missing staged file is our bug: let ENOENT surface as internal
  if (!info.isFile()) throw new Error(`not a regular file: ${path}`);
  if (info.size === 0) throw FfmpegErrors.inputRefused(name, 'the file is empty');

  const bin = opts.ffprobePath ?? (await resolveBinaries({ logger: opts.logger })).ffprobe;
  // Run in the file's own directory and name it relatively: no host path reaches the argv.
  const { exit, stdout } = await runJsonTool({
    bin,
    args: detectArgv(basename(file), opts.format),
    cwd: dirname(file),
    timeoutMs: opts.timeoutMs ?? DEFAULT_PROBE_TIMEOUT_MS,
    signal: opts.signal,
    limits: opts.limits,
    logger: opts.logger,
    ...(opts.forkServers ? { forkServers: opts.forkServers } : {}),
  });
  if (exit.exitCode !== 0) {
    const refused = refusalReason(exit.stderr);
    // A format we refuse is the request's fault (400); data ffprobe cannot read at all is an
    // ffprobe failure, which the spec answers with 500.
    if (refused) throw FfmpegErrors.inputRefused(name, refused);
    throw FfmpegErrors.ffprobeFailed(
      exit.exitCode ?? 1,
      `Input file '${name}' could not be read as media (${unreadableDetail(exit.stderr)})`,
    );
  }
  return accept(name, JSON.parse(stdout.toString('utf8') || '{}') as FfprobeJson);
}

interface FfprobeJson {
  format?: { format_name?: string; format_long_name?: string; duration?: string; bit_rate?: string };
  streams?: {
    index?: number;
    codec_type?: string;
    codec_name?: string;
    width?: number;
    height?: number;
    avg_frame_rate?: string;
    sample_rate?: string;
    channels?: number;
    duration?: string;
  }[];
}

/** Checks what ffprobe found and summarises it. */
function accept(name: string, json: FfprobeJson): ProbedInput {
  const formatName = json.format?.format_name ?? '';
  // The whitelist already enforced this; checked again so the two can never drift apart.
  const demuxer = allowedDemuxer(formatName);
  if (!demuxer) throw FfmpegErrors.inputRefused(name, `the ${formatName || 'unknown'} format is not accepted`);
  const streams = (json.streams ?? []).map((s, i) => {
    const stream: ProbedStream = { index: s.index ?? i, type: s.codec_type ?? 'unknown' };
    if (s.codec_name) stream.codec = s.codec_name;
    if (s.width) stream.width = s.width;
    if (s.height) stream.height = s.height;
    const fps = rate(s.avg_frame_rate);
    if (fps !== undefined) stream.fps = fps;
    const sampleRate = num(s.sample_rate);
    if (sampleRate) stream.sampleRate = sampleRate;
    if (s.channels) stream.channels = s.channels;
    const duration = num(s.duration);
    if (duration !== undefined) stream.durationSec = duration;
    return stream;
  });
  for (const s of streams) {
    const refused = s.codec ? refusedStreamCodec(s.codec) : null;
    if (refused) throw FfmpegErrors.inputRefused(name, `it holds a ${s.codec} stream, which is not allowed: ${refused}`);
    // An AVI can carry a "GAB2" subtitle whose payload is a whole other file (the known
    // HLS-in-AVI trick). Payloads that are real subtitles get a codec; anything else does not.
    if (s.type === 'subtitle' && !s.codec) {
      throw FfmpegErrors.inputRefused(name, 'it holds a subtitle stream of unknown type');
    }
  }
  // An ffmetadata file has no streams: it carries metadata and chapters for -map_metadata.
  if (demuxer.name !== 'ffmetadata' && !streams.some((s) => s.type === 'video' || s.type === 'audio' || s.type === 'subtitle')) {
    throw FfmpegErrors.inputRefused(name, 'it has no audio, video or subtitle stream');
  }
  const probed: ProbedInput = { format: demuxer.name, formatName, streams };
  if (json.format?.format_long_name) probed.formatLongName = json.format.format_long_name;
  const duration = num(json.format?.duration);
  if (duration !== undefined) probed.durationSec = duration;
  const bitRate = num(json.format?.bit_rate);
  if (bitRate !== undefined) probed.bitRate = bitRate;
  return probed;
}

const KIND_NAMES: Record<string, string> = {
  hls: 'an HLS playlist',
  applehttp: 'an HLS playlist',
  dash: 'a DASH manifest',
  concat: 'a concat list',
  sdp: 'an SDP session description',
  image2: 'an image sequence pattern',
  ffmetadata: 'a metadata file',
};

/** Why ffprobe would not open it (a format we refuse), from its (error-level) stderr, or null. Never echoes file contents. */
function refusalReason(stderr: string[]): string | null {
  for (const line of stderr) {
    if (!/Format not on whitelist/i.test(line)) continue;
    const tag = /^\[([a-z0-9_,]+) @/i.exec(line)?.[1];
    // Plain text is detected as the tty demuxer: for the user it is data ffprobe cannot read as media.
    if (tag === 'tty') return null;
    const kind = tag
      ?.split(',')
      .map((n) => KIND_NAMES[n])
      ?.find(Boolean);
    if (kind) return `it is ${kind}`;
    if (tag) return `the ${tag.split(',')[0]} format is not accepted`;
    return 'its format is not accepted';
  }
  return null;
}

/** ffmpeg's own words for unreadable data ("Invalid data found when processing input"), without file names. */
function unreadableDetail(stderr: string[]): string {
  if (stderr.some((l) => /^\[tty @/.test(l))) return 'it is plain text, not a media format';
  const line = stderr
    .map((l) => l.replace(/^.*?: (?=[A-Z])/, ''))
    .find((l) => /invalid data|could not find codec|unknown format|end of file/i.test(l));
  return line?.trim() || 'the data is not a recognised media format';
}

function num(value: string | undefined): number | undefined {
  if (value === undefined || value === '' || value === 'N/A') return undefined;
  const n = Number(value);
  return Number.isFinite(n) ? n : undefined;
}

function rate(value: string | undefined): number | undefined {
  const m = /^(\d+)\/(\d+)$/.exec(value ?? '');
  if (!m || Number(m[2]) === 0 || Number(m[1]) === 0) return undefined;
  return Math.round((Number(m[1]) / Number(m[2])) * 1000) / 1000;
}
