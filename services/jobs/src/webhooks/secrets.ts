// Account secrets change rarely (only when an operator rotates one), so the deliverer keeps each
// for a short while instead of asking Auth on every attempt. Concurrent misses share one lookup.

const MAX_ENTRIES = 10_000;

export class SecretCache {
  private readonly entries = new Map<string, { secret: Promise<string>; until: number }>();

  constructor(
    private readonly fetch: (accountId: string) => Promise<string>,
    private readonly ttlMs: number,
    private readonly now: () => number,
  ) {}

  get(accountId: string): Promise<string> {
    const hit = this.entries.get(accountId);
    if (hit && hit.until > this.now()) return hit.secret;
    if (this.entries.size >= MAX_ENTRIES) this.prune();
    const secret = this.fetch(accountId).then((s) => {
      if (typeof s !== 'string' || s === '') throw new Error('account has no webhook secret');
      return s;
    });
    const entry = { secret, until: this.now() + this.ttlMs };
    this.entries.set(accountId, entry);
    // A failed lookup is not cached: the next attempt asks again.
    secret.catch(() => {
      if (this.entries.get(accountId) === entry) this.entries.delete(accountId);
    });
    return secret;
  }

  /** Bounded: drop expired entries, and everything if the map is still full. */
  private prune(): void {
    const now = this.now();
    for (const [id, e] of this.entries) if (e.until <= now) this.entries.delete(id);
    if (this.entries.size >= MAX_ENTRIES) this.entries.clear();
  }
}
