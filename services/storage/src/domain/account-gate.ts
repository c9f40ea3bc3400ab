// The account's state on every upload request (issue 44): a signed upload URL lives 5 minutes, and
// an account suspended (or whose payment failed) within them may not go on uploading. Storage asks
// Auth for the status (the AccountStatuses port), remembers it a few seconds per account, and
// forgets it at once when Auth announces a change (the accountStatusChanged event).
import { LRUCache } from 'lru-cache';
import { accountNotActive, DomainError, Errors, type AccountNoticeLinks } from '@media/platform';

/** An account's status in Auth's words; undefined: no such account. */
export type AccountStatusName = 'active' | 'no_card' | 'payment_failed' | 'suspended' | 'closed';

/** What Storage needs of Auth (implemented over its GetAccount RPC). */
export interface AccountStatuses {
  /** The account's status; throws DomainError 503 (dependencyDown) when Auth cannot answer. */
  statusOf(accountId: string): Promise<AccountStatusName | undefined>;
}

export interface AccountGate {
  /**
   * Resolves when the account may upload; else throws a DomainError: the spec's 403 for an
   * account not active, or 503 with Retry-After when Auth cannot say (fail closed).
   */
  assertActive(accountId: string): Promise<void>;
  /** Drops what is remembered of the account (its status changed). */
  forget(accountId: string): void;
}

const UNKNOWN = 'unknown';

export function createAccountGate(options: { statuses: AccountStatuses; cacheMs: number; links: AccountNoticeLinks }): AccountGate {
  // fetch() makes one call per account at a time; forget() during a call discards its answer.
  const cache = new LRUCache<string, AccountStatusName | typeof UNKNOWN>({
    max: 50_000,
    ttl: Math.max(1, options.cacheMs),
    fetchMethod: async (accountId) => (await options.statuses.statusOf(accountId)) ?? UNKNOWN,
  });
  const statusOf = async (accountId: string) => {
    // An answer discarded by forget() (undefined) is asked again, once: it may predate the change.
    for (let attempt = 0; attempt < 2; attempt++) {
      const status = options.cacheMs > 0 ? await cache.fetch(accountId) : ((await options.statuses.statusOf(accountId)) ?? UNKNOWN);
      if (status !== undefined) return status;
    }
    throw Errors.dependencyDown();
  };
  return {
    async assertActive(accountId) {
      const status = await statusOf(accountId);
      if (status === 'active') return;
      const refusal = accountNotActive(status, options.links);
      if (refusal) throw refusal;
      // Closed (or gone): the API answers its keys 401; a URL carries no key, so 403, in Auth's sentence.
      throw new DomainError('forbidden', Errors.signInAccountClosed().message);
    },
    forget(accountId) {
      cache.delete(accountId);
    },
  };
}
