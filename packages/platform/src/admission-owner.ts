// Admissions (a sync run or a probe counted toward the account's jobs in progress) belong to the
// process that runs them. It renews their leases while they run, so a process that dies holds
// them only for one short lease; and one started again after a crash releases at once what it
// held before. For that its name must outlive the process: INSTANCE_ID, else the host name (a
// Kubernetes pod's name survives a container restart) with the service and its DATA_DIR.
import { hostname } from 'node:os';

export function admissionOwner(service: string, config: { INSTANCE_ID?: string | undefined; DATA_DIR: string }): string {
  return `${config.INSTANCE_ID || hostname()}/${service}/${config.DATA_DIR}`;
}

/**
 * Renews the leases of the admissions a process runs, all in one call, three times a lease (one
 * renewal lost to a slow store does not let a lease lapse).
 */
export class LeaseKeeper {
  /** Id -> holders: a lease stays renewed until each step that holds it has dropped it. */
  private readonly held = new Map<string, number>();
  private readonly timer: NodeJS.Timeout;

  constructor(renew: (ids: string[]) => Promise<unknown>, leaseMs: number, onError: (err: unknown) => void = () => undefined) {
    this.timer = setInterval(
      () => {
        if (this.held.size > 0) renew([...this.held.keys()]).catch(onError);
      },
      Math.max(100, Math.floor(leaseMs / 3)),
    );
    this.timer.unref();
  }

  hold(id: string): void {
    this.held.set(id, (this.held.get(id) ?? 0) + 1);
  }

  /** Whether this process still runs `id` (a lapsed lease of its own is a late renewal, not a death). */
  holds(id: string): boolean {
    return this.held.has(id);
  }

  drop(id: string): void {
    const left = (this.held.get(id) ?? 1) - 1;
    if (left > 0) this.held.set(id, left);
    else this.held.delete(id);
  }

  stop(): void {
    clearInterval(this.timer);
  }
}
