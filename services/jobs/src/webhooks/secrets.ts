// Account secrets change rarely (only when an operator rotates one), so the deliverer keeps each
// account's for a short while instead of asking Auth on every attempt. Concurrent misses share
// one lookup. An account has its current secret, then any rotated one still in its grace period.

const MAX_ENTRIES = 10_000;

export class SecretCache {
  private readonly entries = new Map<string, { secrets: Promise<string[]>; until: number }>();

  constructor(
    private readonly fetch: (accountId: string) => Promise<string[]>,
    private readonly ttlMs: number,
    private readonly now: () => number,
  ) {}

  /** The account's secrets to sign with, the current one first. */
  get(accountId: string): Promise<string[]> {
    const hit = this.entries.get(accountId);
    if (hit && hit.until > this.now()) return hit.secrets;
    if (this.entries.size >= MAX_ENTRIES) this.prune();
    const secrets = this.fetch(accountId).then((list) => {
      if (!Array.isArray(list) || list.length === 0 || list.some((s) => typeof s !== 'string' || s === ''))
        throw new Error('account has no webhook secret');
      return list;
    });
    const entry = { secrets, until: this.now() + this.ttlMs };
    this.entries.set(accountId, entry);
    // A failed lookup is not cached: the next attempt asks again.
    secrets.catch(() => {
      if (this.entries.get(accountId) === entry) this.entries.delete(accountId);
    });
    return secrets;
  }

  /** Bounded: drop expired entries, and everything if the map is still full. */
  private prune(): void {
    const now = this.now();
    for (const [id, e] of this.entries) if (e.until <= now) this.entries.delete(id);
    if (this.entries.size >= MAX_ENTRIES) this.entries.clear();
  }
}
