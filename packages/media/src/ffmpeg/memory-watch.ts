// A cap on the resident memory of one run. RLIMIT_AS (limits.ts) only stops runaway address
// space at 16 GiB; a filter that keeps every frame (`reverse`, `loop`) at 1080p reaches gigabytes
// of real memory in seconds, well inside it. This machine may have no delegated cgroup v2 to set
// memory.max in, so the run's VmRSS is polled (every 100 ms: a read of a small /proc file) and the
// run is killed when it passes the cap (Errors.memoryLimitExceeded: a 500, not charged).
import { readFile } from 'node:fs/promises';
import { totalmem } from 'node:os';
import { Errors } from '@media/platform';

export const DEFAULT_MEMORY_WATCH_MS = 100;

const MiB = 1024 ** 2;
/** Left to the service itself (Node, the stores, the fork servers) before runs share the rest: at least this. */
const SERVICE_HEADROOM_BYTES = 512 * MiB;
/** No cap below this: ffmpeg with a decoder and an encoder loaded needs about 100 MiB. */
export const MIN_RUN_MEMORY_BYTES = 256 * MiB;

/**
 * Memory the runs may share: the container's cgroup limit when there is one (v1 or v2, as
 * libuv reads it), else the machine's total.
 */
export function machineMemoryBytes(total = totalmem(), constrained = process.constrainedMemory?.() ?? 0): number {
  // An unlimited cgroup reads as 2^64 (v1) or nothing at all.
  return constrained > 0 && constrained < total ? constrained : total;
}

/**
 * The default cap of one run (JOB_MEMORY_LIMIT_MB unset): the machine's memory less a quarter (at
 * least 512 MiB) kept for the service, divided by the runs at once (WORKER_CONCURRENCY).
 */
export function defaultRunMemoryBytes(runs: number, machine = machineMemoryBytes()): number {
  const usable = machine - Math.max(SERVICE_HEADROOM_BYTES, machine / 4);
  return Math.max(MIN_RUN_MEMORY_BYTES, Math.floor(usable / Math.max(1, runs) / MiB) * MiB);
}

/** VmRSS of `pid` in bytes; undefined once the process is gone. */
export async function residentBytes(pid: number): Promise<number | undefined> {
  try {
    const kb = /^VmRSS:\s+(\d+)\s+kB/m.exec(await readFile(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb === undefined ? 0 : Number(kb) * 1024; // a zombie has no VmRSS line
  } catch {
    return undefined;
  }
}

/** Polls the run's resident memory until stopped; `onViolation` is called once, past `limitBytes`. */
export function watchMemory(
  pid: number,
  limitBytes: number,
  onViolation: (err: Error) => void,
  intervalMs = DEFAULT_MEMORY_WATCH_MS,
): { stop(): void } {
  let stopped = false;
  let busy = false;
  const timer = setInterval(() => {
    if (stopped || busy) return;
    busy = true;
    void residentBytes(pid).then((rss) => {
      busy = false;
      if (stopped) return;
      if (rss === undefined) stop();
      else if (rss > limitBytes) {
        stop();
        onViolation(Errors.memoryLimitExceeded(limitBytes));
      }
    });
  }, intervalMs);
  const stop = () => {
    stopped = true;
    clearInterval(timer);
  };
  return { stop };
}
