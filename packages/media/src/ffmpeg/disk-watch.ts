// Keeps a run's outputs from taking the disk below the service's reserve (DISK_RESERVE_MB): the
// reserve is checked before staging, but one task (`-stream_loop` with ten `-c copy` outputs) can
// write gigabytes in seconds once it runs. Two bounds, looked at every ~250 ms:
//  - a share: a run may write the headroom (free space above the reserve) its run started with,
//    divided by the runs that may write at once, so one run leaves room for the others and for
//    uploads (a 500 the task must change: Errors.diskShareExceeded);
//  - a backstop: the disk itself about to cross the reserve (other runs, uploads, another process)
//    while this run writes: the service's shortage, Errors.diskFull() (503; async jobs wait).
// Each look also predicts the next one at the current write rate, so a fast writer is stopped
// before it passes either bound, not one interval after.
import { performance } from 'node:perf_hooks';
import { Errors } from '@media/platform';
import { listOutputs } from './outputs.js';

export interface DiskBound {
  /** Bytes free above the reserve now, negative below it (DiskReserve.headroom); undefined: no reserve, no watch. */
  headroom(): Promise<number | undefined>;
  /** Runs that may write on this disk at once (WORKER_CONCURRENCY): a run's share is its starting headroom / runs. */
  runs: number;
  /** How often the disk and out/ are looked at (default 250 ms). */
  intervalMs?: number;
}

export const DEFAULT_DISK_WATCH_MS = 250;

/** What one look decides: nothing, or the error that ends the run. */
export function judgeDisk(look: {
  share: number;
  written: number;
  /** Bytes this run wrote per ms since the last look. */
  ownRate: number;
  headroom: number;
  /** Bytes per ms the disk's headroom fell since the last look (anyone's writes). */
  diskRate: number;
  aheadMs: number;
}): Error | undefined {
  if (look.written + look.ownRate * look.aheadMs > look.share) return Errors.diskShareExceeded(look.share);
  // Only a run that is writing is stopped: one that is not takes nothing more from the disk.
  if (look.ownRate > 0 && look.headroom - Math.max(look.diskRate, look.ownRate) * look.aheadMs <= 0) return Errors.diskFull();
  return undefined;
}

/** Sum of the sizes of the files under `outDir`. */
async function bytesUnder(outDir: string): Promise<number> {
  return (await listOutputs(outDir)).reduce((a, f) => a + f.size, 0);
}

/**
 * The share a run starts with: the headroom now / the runs that may write at once; undefined
 * without a reserve. runFfmpeg also gives each output file an equal part of it as the kernel's
 * RLIMIT_FSIZE, so a writer faster than the looks (a tmpfs, a loaded machine) is stopped exactly.
 */
export async function startingShare(bound: DiskBound): Promise<number | undefined> {
  const headroom = await bound.headroom();
  return headroom === undefined ? undefined : Math.max(0, headroom) / Math.max(1, bound.runs);
}

/**
 * Watches `outDir` and the disk for the run's whole life; `onViolation` is called once. `share`:
 * the run's share taken before it started (startingShare); else the first look takes it.
 */
export function watchDisk(outDir: string, bound: DiskBound, onViolation: (err: Error) => void, share?: number): { stop(): Promise<void> } {
  const intervalMs = bound.intervalMs ?? DEFAULT_DISK_WATCH_MS;
  let stopped = false;
  let last: { at: number; written: number; headroom: number; share: number } | undefined;
  const look = async () => {
    const [headroom, written] = await Promise.all([bound.headroom(), bytesUnder(outDir)]);
    if (headroom === undefined || stopped) return;
    const at = performance.now();
    // The first look sets the share: the headroom left once the inputs are staged. None left (a
    // staging took it): the service's shortage, as before staging.
    let err: Error | undefined;
    if (!last) {
      last = { at, written, headroom, share: share ?? Math.max(0, headroom + written) / Math.max(1, bound.runs) };
      if (headroom + written <= 0) err = Errors.diskFull();
    } else {
      const dt = Math.max(1, at - last.at);
      err = judgeDisk({
        share: last.share,
        written,
        ownRate: Math.max(0, written - last.written) / dt,
        headroom,
        diskRate: Math.max(0, last.headroom - headroom) / dt,
        aheadMs: intervalMs,
      });
      last = { ...last, at, written, headroom };
    }
    if (err && !stopped) {
      stopped = true;
      onViolation(err);
    }
  };
  let current: Promise<void> | undefined = look().catch(() => undefined); // at most one look in flight
  void current.finally(() => (current = undefined));
  const timer = setInterval(() => {
    if (stopped || current) return;
    current = look()
      .catch(() => undefined)
      .finally(() => (current = undefined));
  }, intervalMs);
  return {
    stop: async () => {
      stopped = true;
      clearInterval(timer);
      await current;
    },
  };
}
