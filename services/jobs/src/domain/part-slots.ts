// Where a split job's parts run (issue 42; docs/api/processing.md, "Long encodes in parallel"):
// always one at a time in the job's own slot, and more at once in this worker's free slots, each
// taken for one part and given back when it ends. A part never stops another run and takes no
// slot while a staged job waits for one here, so other jobs keep their fair order; a free slot
// stays a part's for one part's encode at most.
import type { Slots } from './slots.js';

export type Schedule = <T>(work: () => Promise<T>) => Promise<T>;

export interface PartSlotsOptions {
  slots: Slots;
  accountId: string;
  /** True while a job staged on this worker waits for a slot: parts then use the job's slot only. */
  othersWaiting?: () => boolean;
}

export function partScheduler(opts: PartSlotsOptions): Schedule {
  /** Work waiting for a slot; given the slot's release when it starts. */
  const queue: Array<(release: () => void) => void> = [];
  let ownFree = true;

  /** Starts queued work in the job's slot or a free one, as long as there is both. */
  const drain = () => {
    while (queue.length > 0) {
      if (ownFree) {
        ownFree = false;
        queue.shift()!(() => {
          ownFree = true;
        });
        continue;
      }
      if (opts.othersWaiting?.()) return;
      const release = opts.slots.tryAcquireFree({ accountId: opts.accountId, kind: 'part' });
      if (!release) return;
      queue.shift()!(release);
    }
  };

  return <T>(work: () => Promise<T>) =>
    new Promise<T>((resolve, reject) => {
      queue.push((release: () => void) => {
        void work()
          .then(resolve, reject)
          .finally(() => {
            release();
            drain();
          });
      });
      drain();
    });
}
