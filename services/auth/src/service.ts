import { create } from '@bufbuild/protobuf';
import type { ServiceImpl } from '@connectrpc/connect';
import {
  AccountSchema,
  AccountStatus,
  ApiKeySchema,
  BeginIdempotentResponse_Outcome as Outcome,
  ConsoleSessionSchema,
  type AuthAdminService,
  type AuthService,
} from '@media/proto/media/auth/v1/auth_pb.js';
import type { EventBus } from '@media/eventbus';
import {
  DomainError,
  Errors,
  Events,
  IDEMPOTENCY_KEY_MAX_CHARS,
  isIdempotencyKey,
  publishEvent,
  toTimestamp,
  fromTimestamp,
} from '@media/platform';
import type { AccountDoc, AuthRepository, KeyDoc } from './domain/ports.js';
import type { Authenticator } from './domain/authenticator.js';
import type { LastUsed } from './domain/last-used.js';
import { authorizationHeader, generateKey, hashKey, keyHint, newAccountId, newKeyId } from './domain/keys.js';
import {
  afterRotation,
  DEFAULT_GRACE_SEC,
  graceProblem,
  lastValidUntil,
  newWebhookSecret,
  previousInGrace,
} from './domain/webhook-secrets.js';
import { statusFromProto, statusToProto } from './domain/status.js';
import { keysFromAuthorization } from './domain/authorization.js';
import { usable } from './domain/authenticator.js';
import {
  CONSOLE_SESSION_TTL_MS,
  type ConsoleSessionDoc,
  LOGIN_LINK_TTL_MS,
  newConsoleToken,
  pastedHeader,
  tokenHash,
} from './domain/console-sessions.js';
import { addAdmitted } from './domain/rate-limit.js';

export interface AuthDeps {
  repo: AuthRepository;
  authenticator: Authenticator;
  lastUsed: LastUsed;
  bus: EventBus;
  keyPrefix: string;
}

const accountMessage = (a: AccountDoc) =>
  create(AccountSchema, { accountId: a._id, status: statusToProto(a.status), createdAt: toTimestamp(a.createdAt) });

const keyMessage = (k: KeyDoc) =>
  create(ApiKeySchema, {
    keyId: k._id,
    accountId: k.accountId,
    name: k.name,
    hint: k.hint,
    createdAt: toTimestamp(k.createdAt),
    expiresAt: k.expiresAt ? toTimestamp(k.expiresAt) : undefined,
    revokedAt: k.revokedAt ? toTimestamp(k.revokedAt) : undefined,
    lastUsedAt: k.lastUsedAt ? toTimestamp(k.lastUsedAt) : undefined,
  });

const accountNotFound = () => new DomainError('not_found', 'Account not found');

export function createAuthService({ repo, authenticator, lastUsed }: AuthDeps): ServiceImpl<typeof AuthService> {
  return {
    async authenticate(req) {
      const who = await authenticator.authenticate(req.authorization);
      lastUsed.seen(who.keyId);
      return {
        accountId: who.accountId,
        keyId: who.keyId,
        rateLimitRemaining: who.remaining,
        rateLimitResetSeconds: who.resetSeconds,
        rate: { keyId: who.keyId, window: BigInt(who.rate.window), previous: who.rate.previous, current: who.rate.current },
        keyExpiresAt: who.keyExpiresAt ? toTimestamp(who.keyExpiresAt) : undefined,
      };
    },
    async countRequests(req) {
      // Checked before anything is counted: a refused report must not count half of itself.
      if (req.admitted.some((a) => !a.keyId || a.count <= 0))
        throw Errors.invalidRequest('each report needs a key id and a positive count');
      for (const a of req.admitted) lastUsed.seen(a.keyId);
      const counts = await Promise.all(
        req.admitted.map(async (a) => {
          // The requests happened, so they count even for a key that no longer authenticates.
          const [counted, valid] = await Promise.all([
            addAdmitted(repo.rate, a.keyId, Number(a.window), a.count),
            authenticator.stillValid(a.keyId),
          ]);
          return { keyId: a.keyId, ...counted, window: a.window, refused: !valid };
        }),
      );
      return { counts };
    },
    async getAccount(req) {
      const account = await repo.getAccount(req.accountId);
      if (!account) throw accountNotFound();
      return { account: accountMessage(account) };
    },
    async getWebhookSecret(req) {
      const account = await repo.getAccount(req.accountId);
      if (!account) throw accountNotFound();
      return { secret: account.webhookSecret, previousSecrets: previousInGrace(account, new Date()).map((p) => p.secret) };
    },
    async beginIdempotent(req) {
      checkIdempotencyRequest(req);
      if (!req.fingerprint) throw Errors.invalidRequest('an idempotent request needs a fingerprint');
      const begun = await repo.beginIdempotent(req.accountId, req.key, req.fingerprint);
      return begun.outcome === 'started'
        ? { outcome: Outcome.STARTED, lease: begun.lease }
        : begun.outcome === 'replay'
          ? { outcome: Outcome.REPLAY, status: begun.status, body: begun.body }
          : { outcome: begun.outcome === 'mismatch' ? Outcome.MISMATCH : Outcome.IN_PROGRESS };
    },
    async renewIdempotent(req) {
      checkIdempotencyRequest(req);
      return { held: await repo.renewIdempotent(req.accountId, req.key, req.lease) };
    },
    async finishIdempotent(req) {
      checkIdempotencyRequest(req);
      await repo.finishIdempotent(req.accountId, req.key, req.lease, req.store ? { status: req.status, body: req.body } : undefined);
      return {};
    },
  };
}

/** The gateway checked the header (readIdempotencyKey); a caller that did not is refused here. */
function checkIdempotencyRequest(req: { accountId: string; key: string }): void {
  if (!req.accountId || !isIdempotencyKey(req.key)) throw Errors.idempotencyKeyInvalid(IDEMPOTENCY_KEY_MAX_CHARS);
}

export function createAuthAdminService({ repo, authenticator, bus, keyPrefix }: AuthDeps): ServiceImpl<typeof AuthAdminService> {
  async function requireAccount(id: string): Promise<AccountDoc> {
    const account = await repo.getAccount(id);
    if (!account) throw accountNotFound();
    return account;
  }
  return {
    async createAccount(req) {
      const status = req.status === AccountStatus.UNSPECIFIED ? 'active' : statusFromProto(req.status);
      const doc: AccountDoc = { _id: newAccountId(), status, createdAt: new Date(), webhookSecret: newWebhookSecret() };
      await repo.createAccount(doc);
      return { account: accountMessage(doc) };
    },
    async setAccountStatus(req) {
      const status = statusFromProto(req.status);
      const updated = await repo.setAccountStatus(req.accountId, status);
      if (!updated) throw accountNotFound();
      authenticator.forgetAccount(updated._id);
      await publishEvent(bus, Events.accountStatusChanged, { accountId: updated._id, status, changedAt: toTimestamp(new Date()) });
      return { account: accountMessage(updated) };
    },
    async createKey(req) {
      await requireAccount(req.accountId);
      const name = req.name.trim();
      if (!name || name.length > 100) throw Errors.invalidRequest('Key name must be 1 to 100 characters.');
      const expiresAt = fromTimestamp(req.expiresAt) ?? null;
      if (expiresAt && expiresAt.getTime() <= Date.now()) throw Errors.invalidRequest('Key expiry must be in the future.');
      const secret = generateKey(keyPrefix);
      const doc: KeyDoc = {
        _id: newKeyId(),
        accountId: req.accountId,
        name,
        hash: hashKey(secret),
        hint: keyHint(secret, keyPrefix),
        createdAt: new Date(),
        expiresAt,
        revokedAt: null,
      };
      await repo.createKey(doc);
      return { key: keyMessage(doc), secret, authorization: authorizationHeader(secret) };
    },
    async revokeKey(req) {
      const existing = await repo.getKey(req.keyId);
      if (!existing) throw new DomainError('not_found', 'Key not found');
      const key = existing.revokedAt ? existing : await repo.revokeKey(req.keyId, new Date());
      if (!key) throw new DomainError('not_found', 'Key not found');
      authenticator.forgetKey(key._id);
      // Other Auth replicas drop it from their caches on this event (their cache TTL bounds it otherwise).
      await publishEvent(
        bus,
        Events.keyRevoked,
        { keyId: key._id, accountId: key.accountId, revokedAt: toTimestamp(key.revokedAt!) },
        `revoke:${key._id}`,
      );
      return { key: keyMessage(key) };
    },
    async listKeys(req) {
      await requireAccount(req.accountId);
      return { keys: (await repo.listKeys(req.accountId)).map(keyMessage) };
    },
    async showWebhookSecret(req) {
      const account = await requireAccount(req.accountId);
      const until = lastValidUntil(previousInGrace(account, new Date()));
      return { secret: account.webhookSecret, previousValidUntil: until ? toTimestamp(until) : undefined };
    },
    async rotateWebhookSecret(req) {
      const graceSec = req.graceSec ?? DEFAULT_GRACE_SEC;
      const problem = graceProblem(graceSec);
      if (problem) throw Errors.invalidRequest(problem);
      const account = await requireAccount(req.accountId);
      const now = new Date();
      const previous = afterRotation(account, graceSec, now);
      const updated = await repo.replaceWebhookSecret(account._id, account.webhookSecret, newWebhookSecret(), previous);
      // Another rotation replaced it in between: it stands, and this one asks again.
      if (!updated) throw new DomainError('conflict', 'The webhook secret was rotated at the same moment. Run the rotation again.');
      const until = lastValidUntil(previous);
      return { secret: updated.webhookSecret, previousValidUntil: until ? toTimestamp(until) : undefined };
    },
    async createLoginLink(req) {
      await requireAccount(req.accountId);
      const token = newConsoleToken();
      const expireAt = new Date(Date.now() + LOGIN_LINK_TTL_MS);
      await repo.createLoginLink({ _id: tokenHash(token), accountId: req.accountId, usedAt: null, expireAt });
      return { token, expiresAt: toTimestamp(expireAt) };
    },
    async getLoginLink(req) {
      const link = req.loginToken ? await repo.peekLoginLink(tokenHash(req.loginToken), new Date()) : null;
      if (!link) throw Errors.loginLinkInvalid();
      return { accountId: link.accountId, expiresAt: toTimestamp(link.expireAt) };
    },
    async startConsoleSession(req) {
      const now = new Date();
      let accountId: string;
      let keyId: string | null = null;
      if (req.credential.case === 'loginToken') {
        const link = await repo.useLoginLink(tokenHash(req.credential.value), now);
        if (!link) throw Errors.loginLinkInvalid();
        accountId = link.accountId;
      } else if (req.credential.case === 'apiKey') {
        let key: KeyDoc | null = null;
        for (const candidate of keysFromAuthorization(pastedHeader(req.credential.value), keyPrefix)) {
          key = await repo.findKeyByHash(hashKey(candidate));
          if (key) break;
        }
        if (!usable(key, now.getTime())) throw Errors.signInKeyInvalid();
        accountId = key.accountId;
        keyId = key._id;
      } else throw Errors.invalidRequest('Sign in with a login link or an API key.');
      const account = await repo.getAccount(accountId);
      if (!account || account.status === 'closed') throw Errors.signInAccountClosed();
      const token = newConsoleToken();
      const doc: ConsoleSessionDoc = {
        _id: tokenHash(token),
        accountId,
        keyId,
        createdAt: now,
        expireAt: new Date(now.getTime() + CONSOLE_SESSION_TTL_MS),
      };
      await repo.createSession(doc);
      return { sessionToken: token, session: sessionMessage(doc, account) };
    },
    async getConsoleSession(req) {
      const now = new Date();
      const hash = tokenHash(req.sessionToken);
      const session = req.sessionToken ? await repo.getSession(hash, now) : null;
      if (!session) throw Errors.consoleSessionEnded();
      // Opened with a key: it ends with the key (revoked or expired).
      if (session.keyId && !usable(await repo.getKey(session.keyId), now.getTime())) {
        await repo.endSession(hash);
        throw Errors.consoleSessionEnded();
      }
      const account = await repo.getAccount(session.accountId);
      if (!account || account.status === 'closed') throw Errors.consoleSessionEnded();
      return { session: sessionMessage(session, account) };
    },
    async endConsoleSession(req) {
      if (req.sessionToken) await repo.endSession(tokenHash(req.sessionToken));
      return {};
    },
  };
}

const sessionMessage = (s: ConsoleSessionDoc, account: AccountDoc) =>
  create(ConsoleSessionSchema, {
    accountId: s.accountId,
    keyId: s.keyId ?? '',
    expiresAt: toTimestamp(s.expireAt),
    accountStatus: statusToProto(account.status),
  });
