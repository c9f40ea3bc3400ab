// The bounds watched while a run is alive, beside the time limit and the output limits: the disk
// reserve (disk-watch.ts) and resident memory (memory-watch.ts). See docs/sandbox.md.
import { watchDisk, type DiskBound } from './disk-watch.js';
import { watchMemory } from './memory-watch.js';

export interface RunBounds {
  /** The disk reserve of the work directory's disk and how many runs share its headroom. */
  disk?: DiskBound;
  /** Resident memory one run may use (JOB_MEMORY_LIMIT_MB); undefined or 0: no cap. */
  memoryLimitBytes?: number;
}

/** Starts the watches a run's bounds ask for; `kill` ends the run with the bound's error. */
export function watchRunBounds(
  pid: number | undefined,
  outDir: string,
  bounds: RunBounds,
  kill: (err: Error) => void,
): { stop(): Promise<void> } {
  const memory = pid !== undefined && bounds.memoryLimitBytes ? watchMemory(pid, bounds.memoryLimitBytes, kill) : undefined;
  const disk = bounds.disk ? watchDisk(outDir, bounds.disk, kill) : undefined;
  return {
    stop: async () => {
      memory?.stop();
      await disk?.stop();
    },
  };
}
