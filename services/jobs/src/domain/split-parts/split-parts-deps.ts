// What spreading a split job's parts over the workers needs (PARALLEL_ENCODE=auto).
import type { DistributeDeps } from './distribute.js';

export interface SplitPartsDeps extends Omit<DistributeDeps, 'storage' | 'logger'> {
  /** This process's worker id (startWorker sets it): the owner of the parts its runs split, sync runs' too. */
  ownerId?: string;
}

/** How often a split run reads its parts' records (parts done elsewhere, progress, lapsed leases). */
export const PART_POLL_MS = 500;
