// The Auth service's own data: accounts, API keys (hash only) and rate counters.
import { DuplicateKeyError, type DocStore } from '@media/docstore';
import { WINDOW_MS } from '@media/platform';
import { newLease, recordId, seen, storedUntil, type IdempotencyRecord } from '../domain/idempotency.js';
import type { RateCounters } from '../domain/rate-limit.js';
import type { ConsoleSessionDoc, LoginLinkDoc } from '../domain/console-sessions.js';
import type { AccountDoc, AccountStatusName, AuthRepository, IdempotentBegin, KeyDoc } from '../domain/ports.js';

interface CounterDoc {
  _id: string;
  count: number;
  expireAt: Date;
  [k: string]: unknown;
}

export async function openAuthRepository(store: DocStore): Promise<AuthRepository> {
  const accounts = store.collection<AccountDoc>('accounts');
  const keys = store.collection<KeyDoc>('keys');
  const counters = store.collection<CounterDoc>('rate_counters', { persistent: false });
  await keys.createIndex({ keys: { hash: 1 }, unique: true });
  await keys.createIndex({ keys: { accountId: 1 } });
  await counters.createIndex({ keys: { expireAt: 1 }, expireAfterSeconds: 0 });
  const idempotency = store.collection<IdempotencyRecord>('idempotency');
  await idempotency.createIndex({ keys: { expireAt: 1 }, expireAfterSeconds: 0 });
  const loginLinks = store.collection<LoginLinkDoc>('login_links');
  await loginLinks.createIndex({ keys: { expireAt: 1 }, expireAfterSeconds: 0 });
  const sessions = store.collection<ConsoleSessionDoc>('console_sessions');
  await sessions.createIndex({ keys: { expireAt: 1 }, expireAfterSeconds: 0 });

  /** Takes the key for this request, or says what an existing record gives it (domain/idempotency.ts). */
  async function beginIdempotent(accountId: string, key: string, fingerprint: string, now = new Date()): Promise<IdempotentBegin> {
    const _id = recordId(accountId, key);
    const { lease, leaseUntil } = newLease(now);
    const fresh = { fingerprint, state: 'running' as const, lease, leaseUntil, expireAt: leaseUntil };
    // Two rounds at most: a record that expires or is freed between the reads is taken on the second.
    for (let round = 0; round < 2; round++) {
      const existing = await idempotency.findOne({ _id });
      if (!existing) {
        try {
          await idempotency.insertOne({ _id, ...fresh });
          return { outcome: 'started', lease };
        } catch (err) {
          if (err instanceof DuplicateKeyError) continue;
          throw err;
        }
      }
      const verdict = seen(existing, fingerprint, now);
      if (verdict === 'replay') return { outcome: 'replay', status: existing.status ?? 200, body: existing.body ?? '' };
      if (verdict !== 'free') return { outcome: verdict };
      // Expired, or its gateway stopped renewing: taken over only if no one else just did.
      const taken = await idempotency.findOneAndUpdate(
        { _id, state: existing.state, lease: existing.lease ?? null, expireAt: existing.expireAt },
        { $set: fresh, $unset: { status: '', body: '' } },
      );
      if (taken) return { outcome: 'started', lease };
    }
    return { outcome: 'in_progress' };
  }

  const rate: RateCounters = {
    async add(keyId, window, delta) {
      const doc = await counters.findOneAndUpdate(
        { _id: `${keyId}:${window}` },
        { $inc: { count: delta }, $setOnInsert: { expireAt: new Date((window + 2) * WINDOW_MS) } },
        { upsert: true, returnDocument: 'after' },
      );
      return doc?.count ?? delta;
    },
    async get(keyId, window) {
      return (await counters.findOne({ _id: `${keyId}:${window}` }))?.count ?? 0;
    },
  };

  return {
    rate,
    beginIdempotent,
    /** Extends a held lease; false when it is no longer held. */
    async renewIdempotent(accountId: string, key: string, lease: string, now = new Date()): Promise<boolean> {
      const { leaseUntil } = newLease(now);
      const doc = await idempotency.findOneAndUpdate(
        { _id: recordId(accountId, key), state: 'running', lease },
        { $set: { leaseUntil, expireAt: leaseUntil } },
      );
      return doc !== null;
    },
    /** Stores the answer for replays, or frees the key; a lease no longer held changes nothing. */
    async finishIdempotent(accountId: string, key: string, lease: string, answer?: { status: number; body: string }, now = new Date()) {
      const _id = recordId(accountId, key);
      if (!answer) {
        await idempotency.deleteOne({ _id, state: 'running', lease });
        return;
      }
      await idempotency.findOneAndUpdate(
        { _id, state: 'running', lease },
        {
          $set: { state: 'done', status: answer.status, body: answer.body, expireAt: storedUntil(now) },
          $unset: { lease: '', leaseUntil: '' },
        },
      );
    },
    createAccount: (doc: AccountDoc) => accounts.insertOne(doc),
    getAccount: (id: string) => accounts.findOne({ _id: id }),
    setAccountStatus: (id: string, status: AccountStatusName) =>
      accounts.findOneAndUpdate({ _id: id }, { $set: { status } }, { returnDocument: 'after' }),
    async createKey(doc: KeyDoc): Promise<void> {
      try {
        await keys.insertOne(doc);
      } catch (err) {
        if (err instanceof DuplicateKeyError) throw new Error('key collision; retry');
        throw err;
      }
    },
    findKeyByHash: (hash: string) => keys.findOne({ hash }),
    getKey: (id: string) => keys.findOne({ _id: id }),
    listKeys: (accountId: string) => keys.find({ accountId }, { sort: { createdAt: 1 } }),
    /** Replaces the secret only if it is still `current` (a concurrent rotation wins once). */
    replaceWebhookSecret: (id: string, current: string, secret: string, previous: AccountDoc['previousWebhookSecrets']) =>
      accounts.findOneAndUpdate(
        { _id: id, webhookSecret: current },
        { $set: { webhookSecret: secret, previousWebhookSecrets: previous } },
        { returnDocument: 'after' },
      ),
    createLoginLink: (doc: LoginLinkDoc) => loginLinks.insertOne(doc),
    /** Takes a link once: the first caller gets it, any other (or a late one) null. */
    useLoginLink: (hash: string, now: Date) =>
      loginLinks.findOneAndUpdate({ _id: hash, usedAt: null, expireAt: { $gt: now } }, { $set: { usedAt: now } }),
    /** A link that would still sign in (unused, unexpired), read without taking it. */
    peekLoginLink: (hash: string, now: Date) => loginLinks.findOne({ _id: hash, usedAt: null, expireAt: { $gt: now } }),
    createSession: (doc: ConsoleSessionDoc) => sessions.insertOne(doc),
    getSession: (hash: string, now: Date) => sessions.findOne({ _id: hash, expireAt: { $gt: now } }),
    endSession: (hash: string) => sessions.deleteOne({ _id: hash }),
    // An update that reads nothing back (this runs for every key in use, once a minute).
    touchKey: async (id: string, at: Date) => void (await keys.updateMany({ _id: id }, { $set: { lastUsedAt: at } })),
    revokeKey: (id: string, at: Date) => keys.findOneAndUpdate({ _id: id }, { $set: { revokedAt: at } }, { returnDocument: 'after' }),
  };
}
