// What Auth's rules need of its store (implemented by the repository adapter): the account and
// key documents and the repository interface. The domain depends on these, never on the store's code.
import type { ConsoleSessionDoc, LoginLinkDoc } from './console-sessions.js';
import type { RateCounters } from './rate-limit.js';

export type AccountStatusName = 'active' | 'no_card' | 'payment_failed' | 'suspended' | 'closed';

export interface AccountDoc {
  _id: string;
  status: AccountStatusName;
  createdAt: Date;
  webhookSecret: string;
  /** Secrets a rotation replaced, each signing deliveries beside the current one until `until`. */
  previousWebhookSecrets?: Array<{ secret: string; until: Date }>;
  [k: string]: unknown;
}

export interface KeyDoc {
  _id: string;
  accountId: string;
  name: string;
  hash: string;
  hint: string;
  createdAt: Date;
  expiresAt: Date | null;
  revokedAt: Date | null;
  /** When a request last used it, to the minute (last-used.ts). */
  lastUsedAt?: Date;
  [k: string]: unknown;
}

/** What taking an Idempotency-Key for a request gives (domain/idempotency.ts). */
export type IdempotentBegin =
  | { outcome: 'started'; lease: string }
  | { outcome: 'replay'; status: number; body: string }
  | { outcome: 'in_progress' | 'mismatch' };

export interface AuthRepository {
  rate: RateCounters;
  /** Takes the key for this request, or says what an existing record gives it (domain/idempotency.ts). */
  beginIdempotent(accountId: string, key: string, fingerprint: string, now?: Date): Promise<IdempotentBegin>;
  /** Extends a held lease; false when it is no longer held. */
  renewIdempotent(accountId: string, key: string, lease: string, now?: Date): Promise<boolean>;
  /** Stores the answer for replays, or frees the key; a lease no longer held changes nothing. */
  finishIdempotent(accountId: string, key: string, lease: string, answer?: { status: number; body: string }, now?: Date): Promise<void>;
  createAccount(doc: AccountDoc): Promise<void>;
  getAccount(id: string): Promise<AccountDoc | null>;
  setAccountStatus(id: string, status: AccountStatusName): Promise<AccountDoc | null>;
  /** Throws 'key collision; retry' when the hash is taken. */
  createKey(doc: KeyDoc): Promise<void>;
  findKeyByHash(hash: string): Promise<KeyDoc | null>;
  getKey(id: string): Promise<KeyDoc | null>;
  listKeys(accountId: string): Promise<KeyDoc[]>;
  /** Replaces the secret only if it is still `current` (a concurrent rotation wins once). */
  replaceWebhookSecret(
    id: string,
    current: string,
    secret: string,
    previous: AccountDoc['previousWebhookSecrets'],
  ): Promise<AccountDoc | null>;
  createLoginLink(doc: LoginLinkDoc): Promise<void>;
  /** Takes a link once: the first caller gets it, any other (or a late one) null. */
  useLoginLink(hash: string, now: Date): Promise<LoginLinkDoc | null>;
  /** A link that would still sign in (unused, unexpired), read without taking it. */
  peekLoginLink(hash: string, now: Date): Promise<LoginLinkDoc | null>;
  createSession(doc: ConsoleSessionDoc): Promise<void>;
  getSession(hash: string, now: Date): Promise<ConsoleSessionDoc | null>;
  endSession(hash: string): Promise<boolean>;
  /** Records a key's last use (an update that reads nothing back). */
  touchKey(id: string, at: Date): Promise<void>;
  revokeKey(id: string, at: Date): Promise<KeyDoc | null>;
}
