// The web console's sign-in records (the repository, with the clock passed in): a login link is
// taken once and only within its 15 minutes (and can be read without taking it); a session is
// found until it expires or is ended; only hashes are stored.
import { CONSOLE_SESSION_TTL_MS, LOGIN_LINK_TTL_MS, newConsoleToken, pastedHeader, tokenHash } from '../src/domain/console-sessions.js';
import { embeddedRepo } from './embedded.js';

const repo = embeddedRepo('console');

// Ahead of the real clock, so the store's own TTL sweep (real time) never removes a record here.
const t0 = new Date(Date.now() + 30 * 86_400_000);
const at = (ms: number) => new Date(t0.getTime() + ms);

test('a login link works once, and not after 15 minutes', async () => {
  const token = newConsoleToken();
  expect(token).toMatch(/^[A-Za-z0-9]{43}$/);
  await repo().createLoginLink({ _id: tokenHash(token), accountId: 'acc_a', usedAt: null, expireAt: at(LOGIN_LINK_TTL_MS) });
  // Only the hash is kept: the token itself finds nothing.
  expect(await repo().useLoginLink(token, at(1000))).toBeNull();
  // Two tabs opening the link at once: one of them signs in.
  const both = await Promise.all([repo().useLoginLink(tokenHash(token), at(1000)), repo().useLoginLink(tokenHash(token), at(1000))]);
  expect(both.filter(Boolean)).toHaveLength(1);
  expect(both.find(Boolean)?.accountId).toBe('acc_a');
  expect(await repo().useLoginLink(tokenHash(token), at(2000))).toBeNull();

  // Read without taking it (the console's question before signing in): only while it is usable.
  const asked = newConsoleToken();
  await repo().createLoginLink({ _id: tokenHash(asked), accountId: 'acc_a', usedAt: null, expireAt: at(LOGIN_LINK_TTL_MS) });
  expect((await repo().peekLoginLink(tokenHash(asked), at(1000)))?.accountId).toBe('acc_a');
  expect((await repo().peekLoginLink(tokenHash(asked), at(1000)))?.accountId).toBe('acc_a');
  expect(await repo().peekLoginLink(tokenHash(asked), at(LOGIN_LINK_TTL_MS))).toBeNull();
  expect((await repo().useLoginLink(tokenHash(asked), at(2000)))?.accountId).toBe('acc_a');
  expect(await repo().peekLoginLink(tokenHash(asked), at(3000))).toBeNull();

  const late = newConsoleToken();
  await repo().createLoginLink({ _id: tokenHash(late), accountId: 'acc_a', usedAt: null, expireAt: at(LOGIN_LINK_TTL_MS) });
  expect(await repo().useLoginLink(tokenHash(late), at(LOGIN_LINK_TTL_MS + 1))).toBeNull();
});

test('a session is found until it expires or is ended', async () => {
  const token = newConsoleToken();
  const hash = tokenHash(token);
  await repo().createSession({ _id: hash, accountId: 'acc_b', keyId: null, createdAt: t0, expireAt: at(CONSOLE_SESSION_TTL_MS) });
  expect((await repo().getSession(hash, at(CONSOLE_SESSION_TTL_MS - 1)))?.accountId).toBe('acc_b');
  expect(await repo().getSession(hash, at(CONSOLE_SESSION_TTL_MS))).toBeNull();
  await repo().endSession(hash);
  expect(await repo().getSession(hash, at(1))).toBeNull();
});

test('a pasted key may be the key or the whole Authorization header', () => {
  expect(pastedHeader(' mk_abc ')).toBe('Basic mk_abc');
  expect(pastedHeader('Basic mk_abc')).toBe('Basic mk_abc');
  expect(pastedHeader('basic bWtfYWJjOg==')).toBe('basic bWtfYWJjOg==');
});
