import { randomBytes } from 'node:crypto';

export const LOWER_ALNUM = 'abcdefghijklmnopqrstuvwxyz0123456789';
export const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** Uniformly random string over `alphabet` (rejection sampling, so no modulo bias). */
export function randomString(length: number, alphabet = LOWER_ALNUM): string {
  const limit = 256 - (256 % alphabet.length);
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < limit) out += alphabet[byte % alphabet.length];
      if (out.length === length) break;
    }
  }
  return out;
}

/** Ids of the public interface: dir_, job_, key_ ... followed by lower-case letters and digits. */
export function newId(prefix: string, length = 20): string {
  return prefix + randomString(length);
}
