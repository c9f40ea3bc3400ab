// ffprobe in the same sandbox as ffmpeg, printing JSON that we collect up to a size cap.
import type { ForkServerPool } from '@media/fork-server';
import { availableParallelism } from 'node:os';
import { isAbsolute } from 'node:path';
import pLimit from 'p-limit';
import { ffprobeArgv, type FfmpegInput } from './argv.js';
import { resolveBinaries, type WarnLogger } from './binaries.js';
import { FfmpegErrors } from './errors.js';
import { commonFailure, exitCodeOf, failureDetail, workDirSpellings } from './exit.js';
import { limitsFor, type SandboxLimits } from './limits.js';
import { startSandboxed, type SandboxExit, type SandboxRunOptions } from './sandbox.js';

/**
 * ffprobe runs at once in this process, admission probes and /ffprobe/analyze together: the rest
 * wait their turn. A probe decodes a frame to learn its size, and a small upload can decode to a
 * huge picture (a 420 KB PNG of 12000x12000 takes about 474 MB), so the pool bounds the memory
 * probes take: at most this many times PROBE_ADDRESS_SPACE_BYTES.
 */
export const PROBE_CONCURRENCY = Math.max(2, availableParallelism());
const probePool = pLimit(PROBE_CONCURRENCY);

/**
 * RLIMIT_AS of one ffprobe run (ffmpeg's runs get 16 GiB): room for a frame of the largest size
 * libavcodec accepts, with its decoder's buffers; a bigger allocation fails the probe cleanly.
 */
export const PROBE_ADDRESS_SPACE_BYTES = 4 * 1024 ** 3;

/** ffprobe JSON larger than this is refused (frame and packet listings of long files get huge). */
export const DEFAULT_MAX_PROBE_JSON_BYTES = 64 * 1024 * 1024;

export interface RunFfprobeOptions extends SandboxRunOptions {
  /** Absolute path of the work directory (ffprobe's cwd). */
  workDir: string;
  /** Relative path and the demuxer `probeInput` accepted. */
  input: FfmpegInput;
  /** Already-validated ffprobe options (-show_entries, -select_streams, ...). */
  args: string[];
  maxJsonBytes?: number;
  ffprobePath?: string;
}

export interface FfprobeResult {
  json: unknown;
  /** Wall time of the ffprobe process. */
  durationMs: number;
}

export async function runFfprobe(opts: RunFfprobeOptions): Promise<FfprobeResult> {
  if (!isAbsolute(opts.workDir)) throw new TypeError('workDir must be an absolute path');
  const args = ffprobeArgv(opts.input, opts.args);
  const bin = opts.ffprobePath ?? (await resolveBinaries({ logger: opts.logger })).ffprobe;
  const { exit, stdout } = await runJsonTool({ ...opts, bin, args, cwd: opts.workDir });
  if (exit.exitCode !== 0) {
    throw FfmpegErrors.ffprobeFailed(exitCodeOf(exit), failureDetail(exit, 'ffprobe', await workDirSpellings(opts.workDir)));
  }
  return { json: parseJson(stdout), durationMs: exit.durationMs };
}

export interface JsonToolRun {
  bin: string;
  args: string[];
  cwd: string;
  timeoutMs: number;
  maxJsonBytes?: number;
  signal?: AbortSignal;
  onSpawn?: (pid: number) => void;
  limits?: Partial<SandboxLimits>;
  logger?: WarnLogger;
  /** The owner's fork servers (createForkServers); without them each run starts directly. */
  forkServers?: ForkServerPool;
}

/**
 * Runs a tool that prints JSON on stdout. Throws on a timeout, abort or oversized output; any
 * other ending (including a non-zero exit) is returned for the caller to read.
 */
export function runJsonTool(run: JsonToolRun): Promise<{ exit: SandboxExit; stdout: Buffer }> {
  return probePool(() => runJsonToolNow(run));
}

async function runJsonToolNow(run: JsonToolRun): Promise<{ exit: SandboxExit; stdout: Buffer }> {
  const maxBytes = run.maxJsonBytes ?? DEFAULT_MAX_PROBE_JSON_BYTES;
  const chunks: Buffer[] = [];
  let size = 0;
  let stop = (_reason: unknown) => {}; // set once the process exists
  const proc = await startSandboxed({
    bin: run.bin,
    args: run.args,
    cwd: run.cwd,
    timeoutMs: run.timeoutMs,
    // ffprobe writes no files at all: RLIMIT_FSIZE 0 makes any attempt fail.
    limits: limitsFor(run.timeoutMs, 0, { addressSpaceBytes: PROBE_ADDRESS_SPACE_BYTES, ...run.limits }),
    signal: run.signal,
    onSpawn: run.onSpawn,
    logger: run.logger,
    ...(run.forkServers ? { forkServers: run.forkServers } : {}),
    onStdout: (chunk) => {
      size += chunk.length;
      if (size > maxBytes) stop(FfmpegErrors.probeOutputTooLarge(maxBytes));
      else chunks.push(chunk);
    },
  });
  stop = proc.kill;
  const exit = await proc.done;
  const common = commonFailure(exit);
  if (common !== undefined) throw common;
  return { exit, stdout: Buffer.concat(chunks) };
}

function parseJson(stdout: Buffer): unknown {
  try {
    return JSON.parse(stdout.toString('utf8') || '{}');
  } catch {
    throw new Error('ffprobe printed output that is not JSON');
  }
}
