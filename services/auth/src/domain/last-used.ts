// A key's "last used" time (the console's keys list). Every request passes through Auth
// (Authenticate, or a gateway's CountRequests report of the requests it admitted on its own), but
// a database write for every request is not worth a column: each replica writes a key's time at
// most once a minute, so the figure is right to the minute. Best effort: a failed write is tried again
// on the key's next use and never fails the request.
import { LRUCache } from 'lru-cache';

export const LAST_USED_EVERY_MS = 60_000;

export interface LastUsed {
  /** `keyId` was used now. */
  seen(keyId: string): void;
}

export function createLastUsed(store: { touchKey(keyId: string, at: Date): Promise<void> }, everyMs = LAST_USED_EVERY_MS): LastUsed {
  // Bounded: keys not used for a minute fall out, and a key seen again is written again anyway.
  const written = new LRUCache<string, true>({ max: 100_000, ttl: everyMs, ttlAutopurge: false });
  return {
    seen(keyId) {
      if (written.has(keyId)) return;
      written.set(keyId, true);
      store.touchKey(keyId, new Date()).catch(() => written.delete(keyId));
    },
  };
}
