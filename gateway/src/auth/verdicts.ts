// Keys this gateway has seen Auth accept, so a request with a known key needs no call to Auth.
// Entries are keyed by a hash of the Authorization value (the gateway keeps no key in memory).
// A verdict ends when Auth's key_revoked / account_status_changed event arrives, when Auth's
// answer to a rate report says the key no longer authenticates, or GATEWAY_AUTH_CACHE_SEC after
// Auth last confirmed it (reports confirm the keys in use; with Auth's own cache, a lost event
// leaves a revoked key working under the spec's 60 s even if Auth cannot be reached).
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
  // Hashes per key id (a key may arrive in several header forms), for confirm and forgetKey.
  const hashesOf = new Map<string, Set<string>>();
  const cache =
    ttlMs > 0
      ? new LRUCache<string, Verdict>({
          max,
          ttl: ttlMs,
          dispose: (v, hash) => {
            const hashes = hashesOf.get(v.keyId);
            hashes?.delete(hash);
            if (hashes?.size === 0) hashesOf.delete(v.keyId);
          },
        })
      : undefined;

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
      if (!cache) return;
      const hash = digest(authorization);
      cache.set(hash, verdict);
      const hashes = hashesOf.get(verdict.keyId) ?? new Set<string>();
      hashes.add(hash);
      hashesOf.set(verdict.keyId, hashes);
    },
    /** Auth says the key still authenticates: its verdicts live another full TTL. */
    confirm(keyId: string): void {
      for (const hash of hashesOf.get(keyId) ?? []) cache?.get(hash, { updateAgeOnGet: true });
    },
    forgetKey(keyId: string): void {
      for (const hash of [...(hashesOf.get(keyId) ?? [])]) cache?.delete(hash);
    },
    /** Events are rare: a scan is cheaper than a second index kept on every request. */
    forgetAccount(accountId: string): void {
      if (!cache) return;
      const hashes = [...cache.entries()].filter(([, v]) => v.accountId === accountId).map(([k]) => k);
      for (const k of hashes) cache.delete(k);
    },
  };
}

export type VerdictCache = ReturnType<typeof createVerdictCache>;
