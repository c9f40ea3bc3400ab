// Authentication in the order the spec implies: 401 (no header, unknown/revoked/expired key,
// closed account) before 403 (account not active) before 429 (rate).
import { LRUCache } from 'lru-cache';
import { accountNotActive, Errors, type RateClock } from '@media/platform';
import type { AccountDoc, AuthRepository, KeyDoc } from './ports.js';
import { keysFromAuthorization } from './authorization.js';
import { hashKey } from './keys.js';
import { checkRate } from './rate-limit.js';

export interface AuthenticatorOptions {
  keyPrefix: string;
  consoleUrl: string;
  supportContact: string;
  requestsPerMinute: number;
  /**
   * How long a key or account lookup is reused. Revocation also evicts at once through an event,
   * so this bounds staleness only when an event is lost; it must stay under the spec's 60 s.
   */
  cacheTtlMs: number;
  now?: () => number;
  /** The rate windows' clock (default `now`): tests move it to a fresh window. */
  rateClock?: RateClock;
}

export interface Authenticated {
  accountId: string;
  keyId: string;
  keyExpiresAt?: Date;
  remaining: number;
  resetSeconds: number;
  /** The key's counts after this request. */
  rate: { window: number; previous: number; current: number };
}

const NOT_FOUND = Symbol('not found');

/** A key that exists, is not revoked and has not expired at `at`. */
export const usable = (key: KeyDoc | null, at: number): key is KeyDoc =>
  !!key && !key.revokedAt && !(key.expiresAt && key.expiresAt.getTime() <= at);

/** A store lookup remembered for the cache's TTL, misses included; `cache.delete` forgets one. */
function remembered<T extends {}>(ttlMs: number, load: (k: string) => Promise<T | null>) {
  const cache = new LRUCache<string, T | typeof NOT_FOUND>({ max: 50_000, ttl: ttlMs });
  const find = async (k: string): Promise<T | null> => {
    let hit = cache.get(k);
    if (hit === undefined) {
      hit = (await load(k)) ?? NOT_FOUND;
      cache.set(k, hit);
    }
    return hit === NOT_FOUND ? null : (hit as T);
  };
  return { find, cache };
}

export function createAuthenticator(repo: AuthRepository, options: AuthenticatorOptions) {
  const now = options.now ?? Date.now;
  const rateClock = options.rateClock ?? now;
  const keysByHash = remembered<KeyDoc>(options.cacheTtlMs, (hash) => repo.findKeyByHash(hash));
  const keysById = remembered<KeyDoc>(options.cacheTtlMs, (id) => repo.getKey(id));
  const accounts = remembered<AccountDoc>(options.cacheTtlMs, (id) => repo.getAccount(id));
  const findKey = keysByHash.find;
  const keyById = keysById.find;
  const findAccount = accounts.find;

  return {
    async authenticate(header: string): Promise<Authenticated> {
      if (!header.trim()) throw Errors.authHeaderRequired();
      let key: KeyDoc | null = null;
      for (const candidate of keysFromAuthorization(header, options.keyPrefix)) {
        key = await findKey(hashKey(candidate));
        if (key) break;
      }
      const at = now();
      if (!usable(key, at)) throw Errors.invalidApiKey();
      const account = await findAccount(key.accountId);
      if (!account || account.status === 'closed') throw Errors.invalidApiKey();
      const inactive = accountNotActive(account.status, options);
      if (inactive) throw inactive;
      const rate = await checkRate(repo.rate, key._id, options.requestsPerMinute, rateClock());
      if (!rate.allowed) throw Errors.rateLimited(rate.retryAfterSec, options.requestsPerMinute);
      return {
        accountId: account._id,
        keyId: key._id,
        keyExpiresAt: key.expiresAt ?? undefined,
        remaining: rate.remaining,
        resetSeconds: rate.retryAfterSec,
        rate: { window: rate.window, previous: rate.previous, current: rate.current },
      };
    },
    /** Whether a key a gateway admits on its own still authenticates (not revoked or expired, account active). */
    async stillValid(keyId: string): Promise<boolean> {
      const key = await keyById(keyId);
      if (!usable(key, now())) return false;
      return (await findAccount(key.accountId))?.status === 'active';
    },
    /** Drops a key from the cache (revocation event, or revoked here). */
    forgetKey(keyId: string): void {
      keysById.cache.delete(keyId);
      for (const [hash, doc] of keysByHash.cache.entries()) if (doc !== NOT_FOUND && doc._id === keyId) keysByHash.cache.delete(hash);
    },
    /** Drops an account from the cache (status change). */
    forgetAccount(accountId: string): void {
      accounts.cache.delete(accountId);
    },
  };
}

export type Authenticator = ReturnType<typeof createAuthenticator>;
