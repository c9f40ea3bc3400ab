import { createHash } from 'node:crypto';
import { ALNUM, newId, randomString } from '@media/platform';

/** A new key: <prefix>_ + 40 letters and digits (~238 bits). */
export function generateKey(prefix: string): string {
  return `${prefix}_${randomString(40, ALNUM)}`;
}

/**
 * Only this hash is stored. Keys are long random strings, so a fast hash is safe here (there is
 * nothing to brute-force), and lookups stay O(1) by hash.
 */
export function hashKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

/** Enough of the key to recognise it in a list, never enough to use it. */
export function keyHint(key: string, prefix: string): string {
  return `${key.slice(0, prefix.length + 5)}…`;
}

export const newKeyId = () => newId('key_', 20);
export const newAccountId = () => newId('acc_', 20);

export function authorizationHeader(key: string): string {
  return `Basic ${key}`;
}
