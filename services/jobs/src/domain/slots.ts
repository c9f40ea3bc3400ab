// WORKER_CONCURRENCY ffmpeg processes per worker, shared so that no account can capture them
// (docs/api/processing.md, Capacity; docs/decisions/0009-capacity-no-account-captures.md):
// 1. A free slot goes to whoever asks: an account alone uses every slot.
// 2. No slot free: the account holding the most slots, if it holds at least two more than the
//    asker, gives one up: its youngest async run is stopped and requeued (`preempt`), and the slot
//    is the asker's at once (the stopped ffmpeg is being killed meanwhile).
// 3. No slot free and none to take because one account's sync runs (which cannot be requeued)
//    hold every slot: an account holding none gets one slot beyond the capacity, one at a time.
// A sync request that can get no slot is answered 503 at once; an async job waits its turn.

export interface SlotClaim {
  accountId: string;
  /** part: an extra slot a split job's part runs in (part-slots.ts), never stopped. */
  kind: 'sync' | 'async' | 'part';
  /** Stops the run holding the slot and requeues its job; runs without it are never stopped. */
  preempt?: () => void;
}

interface Held extends SlotClaim {
  seq: number;
}

/** Tests and callers that only count slots: no account, never stopped. */
const ANYONE: SlotClaim = { accountId: '', kind: 'sync' };

export class Slots {
  private readonly held = new Set<Held>();
  private seq = 0;
  /** Told of every slot given back (the async worker: a sync run's slot may start a queued job). */
  onRelease?: (claim: SlotClaim) => void;
  constructor(readonly capacity: number) {}

  get inUse(): number {
    return this.held.size;
  }

  /** Slots an account's runs hold on this worker. */
  heldBy(accountId: string): number {
    let n = 0;
    for (const h of this.held) if (h.accountId === accountId) n++;
    return n;
  }

  /** Whether `claim` would get a slot now (stopping nothing yet). */
  available(claim: SlotClaim = ANYONE): boolean {
    return this.free() || this.victim(claim.accountId) !== undefined || this.overflow(claim.accountId);
  }

  /**
   * Takes a slot only if one is free (no rule 2 or 3): the extra slots a split job's parts run
   * in, which must never stop or crowd out another run. Null when none is free.
   */
  tryAcquireFree(claim: SlotClaim = ANYONE): (() => void) | null {
    return this.free() ? this.tryAcquire(claim) : null;
  }

  /** Takes a slot for `claim` (stopping another account's run if rule 2 says so), or null. */
  tryAcquire(claim: SlotClaim = ANYONE): (() => void) | null {
    if (!this.free() && !this.overflow(claim.accountId)) {
      const victim = this.victim(claim.accountId);
      if (!victim) return null;
      this.held.delete(victim);
      victim.preempt?.();
    }
    const entry: Held = { ...claim, seq: this.seq++ };
    this.held.add(entry);
    return () => {
      if (this.held.delete(entry)) this.onRelease?.(claim);
    };
  }

  private free(): boolean {
    return this.held.size < this.capacity;
  }

  /**
   * Slots each account's runs hold, for rule 2. A split job's part slots do not count: another
   * account takes one of those first, and counting them would stop the job's own run (and every
   * part it has encoded) instead.
   */
  private counts(): Map<string, number> {
    const counts = new Map<string, number>();
    for (const h of this.held) if (h.kind !== 'part') counts.set(h.accountId, (counts.get(h.accountId) ?? 0) + 1);
    return counts;
  }

  /**
   * First, a split job's part slot of another account: given to the asker at once, its part runs
   * on to its end (one process over capacity, for one part at most). Then rule 2: the youngest
   * stoppable run of the account holding the most slots, two more than the asker.
   */
  private victim(accountId: string): Held | undefined {
    if (accountId !== ANYONE.accountId) for (const h of this.held) if (h.kind === 'part' && h.accountId !== accountId) return h;
    const counts = this.counts();
    const mine = counts.get(accountId) ?? 0;
    let best: Held | undefined;
    for (const h of this.held) {
      if (!h.preempt || h.accountId === accountId) continue;
      const n = counts.get(h.accountId)!;
      if (n < mine + 2) continue;
      const bestN = best ? counts.get(best.accountId)! : -1;
      if (n > bestN || (n === bestN && h.seq > best!.seq)) best = h;
    }
    return best;
  }

  /** Rule 3: every slot held by one other account, none stoppable, and no slot beyond capacity in use yet. */
  private overflow(accountId: string): boolean {
    if (accountId === ANYONE.accountId || this.held.size !== this.capacity) return false;
    const accounts = new Set([...this.held].map((h) => h.accountId));
    const [holder] = accounts;
    return accounts.size === 1 && holder !== accountId && holder !== ANYONE.accountId && [...this.held].every((h) => !h.preempt);
  }
}
