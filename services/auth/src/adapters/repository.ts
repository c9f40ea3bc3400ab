// The Auth service's own data: accounts, API keys (hash only) and rate counters.
import { DuplicateKeyError, type DocStore } from '@media/docstore';
import { WINDOW_MS } from '@media/platform';
import type { RateCounters } from '../domain/rate-limit.js';

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
  [k: string]: unknown;
}

interface CounterDoc {
  _id: string;
  count: number;
  expireAt: Date;
  [k: string]: unknown;
}

export async function openAuthRepository(store: DocStore) {
  const accounts = store.collection<AccountDoc>('accounts');
  const keys = store.collection<KeyDoc>('keys');
  const counters = store.collection<CounterDoc>('rate_counters', { persistent: false });
  await keys.createIndex({ keys: { hash: 1 }, unique: true });
  await keys.createIndex({ keys: { accountId: 1 } });
  await counters.createIndex({ keys: { expireAt: 1 }, expireAfterSeconds: 0 });

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
    revokeKey: (id: string, at: Date) => keys.findOneAndUpdate({ _id: id }, { $set: { revokedAt: at } }, { returnDocument: 'after' }),
  };
}

export type AuthRepository = Awaited<ReturnType<typeof openAuthRepository>>;
