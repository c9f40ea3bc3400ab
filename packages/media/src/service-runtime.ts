// What a service that runs ffmpeg or ffprobe (Jobs, Probe) opens before it serves: the binaries
// found, its fork servers, and the settings of the URLs it fetches.
import { readFileSync } from 'node:fs';
import { resolveBinaries, type WarnLogger } from './ffmpeg/binaries.js';
import { type ForkServersOption, serviceForkServers } from './ffmpeg/sandbox.js';
import type { CidrList } from './net/cidr.js';
import { parseCidrList } from './net/cidr.js';

export interface MediaRuntimeConfig {
  FFMPEG_FORK_SERVER: boolean;
  URL_ALLOWLIST_CIDRS: string;
  URL_CA_FILE?: string | undefined;
}

export interface MediaRuntime {
  forkServers: NonNullable<ForkServersOption['forkServers']>;
  /** Closes the fork servers the service opened itself (not the caller's). */
  releaseForkServers(): Promise<void>;
  allowlist: CidrList;
  ca: string | undefined;
}

export async function openMediaRuntime(config: MediaRuntimeConfig, options: ForkServersOption, logger: WarnLogger): Promise<MediaRuntime> {
  // Fails fast (and says which) when neither a system nor a bundled ffmpeg/ffprobe can be found.
  await resolveBinaries({ logger });
  // Its own fork servers (FFMPEG_FORK_SERVER) unless given: Jobs and Probe, in one process or not, each have their own.
  const { forkServers, release } = serviceForkServers(options, { enabled: config.FFMPEG_FORK_SERVER, logger });
  return {
    forkServers,
    releaseForkServers: release,
    allowlist: parseCidrList(config.URL_ALLOWLIST_CIDRS),
    ca: config.URL_CA_FILE ? readFileSync(config.URL_CA_FILE, 'utf8') : undefined,
  };
}
