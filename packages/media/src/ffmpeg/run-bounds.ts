// The bounds watched while a run is alive, beside the time limit and the output limits: the disk
// reserve (disk-watch.ts) and resident memory (a cgroup v2 memory.max where this process has a
// delegated one, memory-cgroup.ts; else a poll, memory-watch.ts). See docs/sandbox.md.
import { Errors } from '@media/platform';
import { watchDisk, type DiskBound } from './disk-watch.js';
import { joinRunCgroup, runCgroupParent, type RunCgroup } from './memory-cgroup.js';
import { watchMemory } from './memory-watch.js';

export interface RunBounds {
  /** The disk reserve of the work directory's disk and how many runs share its headroom. */
  disk?: DiskBound;
  /** Resident memory one run may use (JOB_MEMORY_LIMIT_MB); undefined or 0: no cap. */
  memoryLimitBytes?: number;
}

/**
 * The largest file a run may write (RLIMIT_FSIZE): the spec's limit, or, when the disk's reserve
 * is watched, an equal part of the run's starting share for each output (the kernel stops a
 * writer faster than the watch's looks; the watch still bounds the sum of numbered files).
 */
export function fileSizeCap(maxBytes: number, diskShare: number | undefined, outputs: number): number {
  if (diskShare === undefined) return maxBytes;
  return Math.min(maxBytes, Math.max(1, Math.floor(diskShare / Math.max(1, outputs))));
}

/**
 * Starts the watches a run's bounds ask for; `kill` ends the run with the bound's error. `stop`
 * (once the run has exited) gives the error of a bound the kernel enforced (the cgroup's OOM kill).
 */
export function watchRunBounds(
  pid: number | undefined,
  outDir: string,
  bounds: RunBounds,
  kill: (err: Error) => void,
  diskShare?: number,
): { stop(): Promise<Error | undefined> } {
  const memory = pid !== undefined && bounds.memoryLimitBytes ? capMemory(pid, bounds.memoryLimitBytes, kill) : undefined;
  const disk = bounds.disk ? watchDisk(outDir, bounds.disk, kill, diskShare) : undefined;
  return {
    stop: async () => {
      await disk?.stop();
      return memory?.stop();
    },
  };
}

function capMemory(pid: number, limitBytes: number, kill: (err: Error) => void): { stop(): Promise<Error | undefined> } {
  let stopped = false;
  let poll: { stop(): void } | undefined;
  const cgroup: Promise<RunCgroup | undefined> = runCgroupParent()
    .then((parent) => (parent === undefined ? undefined : joinRunCgroup(parent, pid, limitBytes)))
    .catch(() => undefined)
    .then((joined) => {
      if (!joined && !stopped) poll = watchMemory(pid, limitBytes, kill);
      return joined;
    });
  return {
    stop: async () => {
      stopped = true;
      const joined = await cgroup;
      poll?.stop();
      if (!joined) return undefined;
      const killed = await joined.oomKilled();
      await joined.remove();
      return killed ? Errors.memoryLimitExceeded(limitBytes) : undefined;
    },
  };
}
