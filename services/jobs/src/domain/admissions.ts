// The admissions this Jobs process runs itself (sync requests): their owner name, their short
// lease, renewed while they run, and their release at start when a crash left them behind.
// Probe processes renew their probes' admissions the same way, through RenewAdmissions
// (service.ts). See admissionLease (job-doc.ts).
import { LeaseKeeper, type Logger } from '@media/platform';
import type { JobsRepository } from './ports.js';
import { admissionLease, INTERRUPTED_ERROR } from './job-doc.js';

export interface Admissions {
  owner: string;
  leaseMs: number;
  keeper: LeaseKeeper;
}

export function keepAdmissions(repo: JobsRepository, owner: string, leaseMs: number, logger: Logger): Admissions {
  const keeper = new LeaseKeeper(
    (ids) => repo.renewAdmissions(owner, ids, admissionLease(leaseMs)),
    leaseMs,
    (err) => logger.warn({ err }, 'could not renew the leases of sync requests in progress'),
  );
  return { owner, leaseMs, keeper };
}

/**
 * Ends, as interrupted and uncharged, every admission `owner` still holds; returns how many.
 * `onReleased`: told of each (a split sync run's parts are removed then).
 */
export async function releaseOwned(
  repo: JobsRepository,
  owner: string,
  logger: Logger,
  onReleased: (jobId: string) => Promise<void> = async () => {},
): Promise<number> {
  let released = 0;
  for (const job of await repo.ownedAdmissions(owner)) {
    if (await repo.finish(job._id, ['processing'], { status: 'failed', error: INTERRUPTED_ERROR })) {
      released += 1;
      await onReleased(job._id);
    }
  }
  if (released > 0)
    logger.warn({ owner, released }, 'released the sync requests or probes a previous run of this process left in progress');
  return released;
}
