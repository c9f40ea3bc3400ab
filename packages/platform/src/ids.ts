import { randomFillSync } from 'node:crypto';

export const LOWER_ALNUM = 'abcdefghijklmnopqrstuvwxyz0123456789';
export const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

// Random bytes drawn from the CSPRNG in blocks: one call per id cost ~8 µs on a request's path.
const pool = Buffer.alloc(4096);
let used = pool.length;

function nextByte(): number {
  if (used === pool.length) {
    randomFillSync(pool);
    used = 0;
  }
  const byte = pool[used]!;
  pool[used++] = 0; // a generated key or secret does not linger in the pool
  return byte;
}

/** Uniformly random string over `alphabet` (rejection sampling, so no modulo bias). */
export function randomString(length: number, alphabet = LOWER_ALNUM): string {
  const limit = 256 - (256 % alphabet.length);
  let out = '';
  while (out.length < length) {
    const byte = nextByte();
    if (byte < limit) out += alphabet[byte % alphabet.length];
  }
  return out;
}

/** Ids of the public interface: dir_, job_, key_ ... followed by lower-case letters and digits. */
export function newId(prefix: string, length = 20): string {
  return prefix + randomString(length);
}

/** The X-Request-Id of a public HTTP answer (the gateway's, and the signed URLs' of Storage). */
export const newRequestId = () => newId('req_', 20);
