// The major version of the ffmpeg a split run uses. The join leaves the input's own video out with
// an input-level -vn, which only keeps a stream out of ffmpeg's automatic stream selection from
// FFmpeg 5 on (4.1, the npm fallback build, still selects it and would copy the source's video).
import { resolveBinaries, type WarnLogger } from '../binaries.js';
import { limitsFor } from '../limits.js';
import { startSandboxed } from '../sandbox.js';

/** The least FFmpeg major version a split run needs. */
export const SPLIT_MIN_FFMPEG_MAJOR = 5;

const majors = new Map<string, Promise<number | undefined>>();

/** `ffmpeg -version`'s major version (undefined for a git snapshot or an unreadable banner), once per binary. */
export function ffmpegMajor(bin: string, cwd: string, logger?: WarnLogger): Promise<number | undefined> {
  let major = majors.get(bin);
  if (!major) {
    major = readMajor(bin, cwd, logger).catch(() => undefined);
    majors.set(bin, major);
  }
  return major;
}

async function readMajor(bin: string, cwd: string, logger?: WarnLogger): Promise<number | undefined> {
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
  const m = /^ffmpeg version n?(\d+)\.\d/m.exec(Buffer.concat(chunks).toString('utf8'));
  return m ? Number(m[1]) : undefined;
}

/** The ffmpeg binary a run with these options uses. */
export async function ffmpegBin(opts: { ffmpegPath?: string; logger?: WarnLogger }): Promise<string> {
  return opts.ffmpegPath ?? (await resolveBinaries({ logger: opts.logger })).ffmpeg;
}
