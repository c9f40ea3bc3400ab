// Free space on the disks the service writes user data to. Below a reserve, work that would add
// user data (an upload, a URL input, a job's outputs) is refused with 503 + Retry-After, so the
// stores keep room to write records, deletes and the expiry sweep that frees space again. A disk
// that fills anyway (ENOSPC) is the service's fault, never the client's: the same 503.
import { statfs } from 'node:fs/promises';
import { Errors, isNoSpace } from './errors.js';
import { metricSources } from './metrics.js';

export interface DiskReserve {
  /** Throws Errors.diskFull() unless `bytes` more would leave the reserve free on the disk. */
  assertRoom(bytes?: number): Promise<void>;
  /**
   * True when less than the reserve (at least LOW_BYTES) is free: whether a tool's "No space left
   * on device" was the disk's doing, not a text a crafted input made it print.
   */
  isLow(): Promise<boolean>;
  /** Bytes free above the reserve now (negative below it); undefined when the reserve is off. */
  headroom(): Promise<number | undefined>;
}

/** Free space under which the disk counts as full even with no reserve set. */
const LOW_BYTES = 16 * 1024 * 1024;

/** Bytes an unprivileged process may still write on the disk holding `dir`. */
export async function freeBytes(dir: string): Promise<number> {
  const s = await statfs(dir);
  return s.bavail * s.bsize;
}

/**
 * A reserve of `reserveMiB` (DISK_RESERVE_MB) on the disk holding `dir`; 0 turns the check off.
 * With `volume`, its headroom is exported (media_disk_headroom_bytes{volume}).
 */
export function diskReserve(dir: string, reserveMiB: number, volume?: string): DiskReserve {
  const reserveBytes = reserveMiB * 1024 * 1024;
  if (volume) metricSources.diskHeadroom(volume, async () => (await freeBytes(dir)) - reserveBytes);
  return {
    async assertRoom(bytes = 0) {
      if (reserveBytes <= 0) return;
      if ((await freeBytes(dir)) - bytes < reserveBytes) throw Errors.diskFull();
    },
    isLow: async () => (await freeBytes(dir)) < Math.max(reserveBytes, LOW_BYTES),
    headroom: async () => (reserveBytes <= 0 ? undefined : (await freeBytes(dir)) - reserveBytes),
  };
}

/** Rethrows a full disk as the service's 503; any other error unchanged. */
export function rethrowNoSpace(err: unknown): never {
  throw isNoSpace(err) ? Errors.diskFull() : err;
}
