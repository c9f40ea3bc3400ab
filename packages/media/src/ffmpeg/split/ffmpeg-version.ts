// The version of the ffmpeg a split run uses. The join leaves the input's own video out with an
// input-level -vn, which keeps a stream out of ffmpeg's automatic stream selection in FFmpeg 5.1,
// the version checked here (4.1, the npm fallback build, still selects it and would copy the
// source's video).
import { resolveBinaries, type WarnLogger } from '../binaries.js';
import { limitsFor } from '../limits.js';
import { startSandboxed } from '../sandbox.js';

/** The least FFmpeg version a split run needs. */
export const SPLIT_MIN_FFMPEG = { major: 5, minor: 1 };

/** Whether a version read by ffmpegVersion is at least SPLIT_MIN_FFMPEG. */
export function splitSupported(version: { major: number; minor: number } | undefined): boolean {
  if (!version) return false;
  return version.major > SPLIT_MIN_FFMPEG.major || (version.major === SPLIT_MIN_FFMPEG.major && version.minor >= SPLIT_MIN_FFMPEG.minor);
}

type Version = { major: number; minor: number };
const versions = new Map<string, Promise<Version | undefined>>();

/** `ffmpeg -version`'s major and minor, undefined for a git snapshot or an unreadable banner; read once per binary. */
export function ffmpegVersion(bin: string, cwd: string, logger?: WarnLogger): Promise<Version | undefined> {
  let version = versions.get(bin);
  if (!version) {
    // A read that failed (a timeout under load) is not kept: the next run reads it again.
    version = readVersion(bin, cwd, logger).catch(() => {
      versions.delete(bin);
      return undefined;
    });
    versions.set(bin, version);
  }
  return version;
}

async function readVersion(bin: string, cwd: string, logger?: WarnLogger): Promise<Version | undefined> {
  const chunks: Buffer[] = [];
  const timeoutMs = 10_000;
  const proc = await startSandboxed({
    bin,
    args: ['-version'],
    cwd,
    timeoutMs,
    limits: limitsFor(timeoutMs, 0),
    onStdout: (chunk) => chunks.push(chunk),
    ...(logger ? { logger } : {}),
  });
  await proc.done;
  const m = /^ffmpeg version n?(\d+)\.(\d+)/m.exec(Buffer.concat(chunks).toString('utf8'));
  return m ? { major: Number(m[1]), minor: Number(m[2]) } : undefined;
}

/** The ffmpeg binary a run with these options uses. */
export async function ffmpegBin(opts: { ffmpegPath?: string; logger?: WarnLogger }): Promise<string> {
  return opts.ffmpegPath ?? (await resolveBinaries({ logger: opts.logger })).ffmpeg;
}
