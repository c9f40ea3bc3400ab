// Keys this gateway has seen Auth accept, so a request with a known key needs no call to Auth.
// Entries are keyed by a hash of the Authorization value (the gateway keeps no key in memory),
// evicted at once by Auth's key_revoked / account_status_changed events, and trusted for at most
// GATEWAY_AUTH_CACHE_SEC should an event be lost (with Auth's own cache, under the spec's 60 s).
import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';

export interface Verdict {
  accountId: string;
  keyId: string;
  /** Epoch ms after which the key stops working by itself. */
  keyExpiresAt?: number;
}

export interface VerdictCacheOptions {
  ttlMs: number;
  max?: number;
  now?: () => number;
}

const digest = (authorization: string) => createHash('sha256').update(authorization).digest('base64');

export function createVerdictCache({ ttlMs, max = 50_000, now = Date.now }: VerdictCacheOptions) {
  const cache = ttlMs > 0 ? new LRUCache<string, Verdict>({ max, ttl: ttlMs }) : undefined;
  // Events are rare: a scan is cheaper than a second index kept on every request.
  const forget = (match: (v: Verdict) => boolean) => {
    if (!cache) return;
    const hashes = [...cache.entries()].filter(([, v]) => match(v)).map(([k]) => k);
    for (const k of hashes) cache.delete(k);
  };
  return {
    get(authorization: string): Verdict | undefined {
      if (!cache || !authorization) return undefined;
      const hash = digest(authorization);
      const hit = cache.get(hash);
      if (hit?.keyExpiresAt !== undefined && hit.keyExpiresAt <= now()) {
        cache.delete(hash);
        return undefined;
      }
      return hit;
    },
    set(authorization: string, verdict: Verdict): void {
      cache?.set(digest(authorization), verdict);
    },
    forgetKey(keyId: string): void {
      forget((v) => v.keyId === keyId);
    },
    forgetAccount(accountId: string): void {
      forget((v) => v.accountId === accountId);
    },
  };
}

export type VerdictCache = ReturnType<typeof createVerdictCache>;
