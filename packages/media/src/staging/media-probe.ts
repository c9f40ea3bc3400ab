// The demuxer allow-list check of a staged input, done once per stored blob: an uploaded blob
// never changes, so the verdict probeInput reached is kept with the file in Storage and later
// tasks on the same file skip that ffprobe run. ffmpeg still opens the input with exactly the
// recorded demuxer and nothing nested outside it, so a verdict can only ever narrow what runs.
import type { WarnLogger } from '../ffmpeg/binaries.js';
import { allowedDemuxer, SERVICE_BUILT_DEMUXERS } from '../ffmpeg/demuxers.js';
import { probeInput, type ProbedInput } from '../ffmpeg/probe-input.js';
import type { ResolvedInput, StagingDeps } from './staging.js';

/** Bumped whenever probeInput's rules change: older verdicts are then taken again. */
export const MEDIA_PROBE_VERSION = 2;

/** A recorded verdict, if it is of this version and names a demuxer still allowed. */
export function parseMediaProbe(json: string | undefined): ProbedInput | undefined {
  if (!json) return undefined;
  try {
    const { v, ...probed } = JSON.parse(json) as ProbedInput & { v?: number };
    const demuxer = typeof probed.format === 'string' ? allowedDemuxer(probed.format) : undefined;
    if (v !== MEDIA_PROBE_VERSION || !demuxer || SERVICE_BUILT_DEMUXERS.has(demuxer.name) || !Array.isArray(probed.streams))
      return undefined;
    return probed;
  } catch {
    return undefined;
  }
}

export interface ProbeStagedOptions {
  workDir: string;
  logger: WarnLogger;
  signal?: AbortSignal;
  /** Where the file is staged, relative to workDir (default in/<i>). */
  path?: string;
  /** The demuxer the task named, forced instead of detected. */
  format?: { name: string; args: readonly string[] };
}

/**
 * The verdict for a staged file (`in/<i>` by default): the recorded one, else probeInput's (then
 * recorded). A demuxer the task forced (-f rawvideo) is probed as given, never taken from a record.
 */
export async function probeStaged(
  deps: StagingDeps,
  accountId: string,
  i: number,
  r: ResolvedInput,
  opts: ProbeStagedOptions,
): Promise<ProbedInput> {
  const recorded = opts.format ? undefined : parseMediaProbe(r.mediaProbe);
  if (recorded) return recorded;
  const probed = await probeInput(opts.path ?? `in/${i}`, {
    workDir: opts.workDir,
    displayName: r.name,
    logger: opts.logger,
    signal: opts.signal,
    ...(deps.forkServers ? { forkServers: deps.forkServers } : {}),
    ...(opts.format ? { format: opts.format } : {}),
  });
  if (opts.format) return probed;
  if (r.input.kind === 'uploaded' && r.blobKey) {
    const file = { accountId, dirId: r.input.dirId, fileName: r.input.fileName };
    // Not awaited: the task needs only the verdict; losing the record costs one probe later.
    deps.storage
      .recordMediaProbe({ file, blobKey: r.blobKey, mediaProbe: JSON.stringify({ v: MEDIA_PROBE_VERSION, ...probed }) })
      .catch((err: unknown) => opts.logger.warn({ err }, 'media probe not recorded'));
  }
  return probed;
}
