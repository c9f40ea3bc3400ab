// The web console's sign-in. A login link's token and a session's cookie value are long random
// strings shown once; only their hashes are stored (as API keys are), so a copy of the database
// signs nobody in. Links last 15 minutes and are used once; sessions last 12 hours, or until
// signed out; a session opened with an API key ends when that key is revoked or expires.
import { ALNUM, randomString } from '@media/platform';
import { hashKey } from './keys.js';

/** Defined with the other account rules in platform: the console's cookie lasts as long. */
export { CONSOLE_SESSION_TTL_MS } from '@media/platform';

export const LOGIN_LINK_TTL_MS = 15 * 60_000;

export const newConsoleToken = (): string => randomString(43, ALNUM);
export const tokenHash = (token: string): string => hashKey(token);

export interface LoginLinkDoc {
  /** tokenHash(token) */
  _id: string;
  accountId: string;
  /** Set when it is used: a second use finds it taken. */
  usedAt: Date | null;
  expireAt: Date;
  [k: string]: unknown;
}

export interface ConsoleSessionDoc {
  /** tokenHash(cookie value) */
  _id: string;
  accountId: string;
  /** The key it was opened with; null for a login link. */
  keyId: string | null;
  createdAt: Date;
  expireAt: Date;
  [k: string]: unknown;
}

/** An API key as a user may paste it: the key, or the whole Authorization header value. */
export const pastedHeader = (input: string): string => (/^basic[ \t]/i.test(input.trim()) ? input : `Basic ${input.trim()}`);
