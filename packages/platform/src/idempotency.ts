// The Idempotency-Key header (IETF httpapi draft): its rules, in one place for the gateway and Auth.
import { createHash } from 'node:crypto';
import { Errors } from './errors.js';

/** How long a stored answer is replayed. */
export const IDEMPOTENCY_TTL_SEC = 86_400;
export const IDEMPOTENCY_KEY_MAX_CHARS = 255;
/** A taken key is held this long unless its gateway renews it (a third of it, while it works). */
export const IDEMPOTENCY_LEASE_SEC = 60;

const VISIBLE_ASCII = /^[\x21-\x7e]+$/;

/** 1 to 255 visible ASCII characters. */
export const isIdempotencyKey = (key: string) => key.length <= IDEMPOTENCY_KEY_MAX_CHARS && VISIBLE_ASCII.test(key);

/**
 * The key of a request's Idempotency-Key header, or undefined without one. The draft sends it as
 * a structured-field string ("..."); a bare token, as most clients send, is the same key.
 */
export function readIdempotencyKey(header: string | string[] | undefined): string | undefined {
  if (header === undefined) return undefined;
  if (Array.isArray(header)) throw Errors.idempotencyKeyInvalid(IDEMPOTENCY_KEY_MAX_CHARS);
  const quoted = /^"(.*)"$/.exec(header);
  const key = quoted ? quoted[1]! : header;
  if (!isIdempotencyKey(key) || (!quoted && key.includes('"'))) throw Errors.idempotencyKeyInvalid(IDEMPOTENCY_KEY_MAX_CHARS);
  return key;
}

/** What "the same request" means: method, path and body (as canonical JSON text). */
export function requestFingerprint(method: string, path: string, canonicalBody: string): string {
  return createHash('sha256').update(`${method} ${path}\n${canonicalBody}`).digest('base64url');
}
