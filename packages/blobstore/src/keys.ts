// One key grammar for both backends, so a key that works on disk also works on S3 and back.
import { InvalidBlobKeyError } from './errors.js';

/** S3's own limit on key length, in UTF-8 bytes. */
export const MAX_KEY_BYTES = 1024;

// C0 controls and DEL cannot travel in S3's XML listings; lone surrogates would collapse into U+FFFD
// when encoded, so two keys could name one object.
const FORBIDDEN = /[\u0000-\u001f\u007f]|\p{Surrogate}/u;

/** Throws InvalidBlobKeyError unless `key` is "seg/seg/..." with non-empty segments other than . and .. */
export function assertValidKey(key: string): void {
  if (typeof key !== 'string' || key.length === 0) throw new InvalidBlobKeyError(String(key), 'empty');
  if (Buffer.byteLength(key, 'utf8') > MAX_KEY_BYTES) throw new InvalidBlobKeyError(key, `longer than ${MAX_KEY_BYTES} bytes`);
  if (FORBIDDEN.test(key)) throw new InvalidBlobKeyError(key, 'contains a control character or a lone surrogate');
  for (const segment of key.split('/')) {
    // Empty, "." and ".." segments would be rewritten by URL normalisation and path joining.
    if (segment === '' || segment === '.' || segment === '..') {
      throw new InvalidBlobKeyError(key, 'has an empty, "." or ".." segment');
    }
  }
}

/** Last segment of a key: the file name the user gave. */
export function keyFileName(key: string): string {
  return key.slice(key.lastIndexOf('/') + 1);
}

/**
 * Prefixes for deletePrefix: complete segments follow the key rules, the last may be partial or
 * empty ("acc/dir/"). The empty prefix is refused: a bug computing "" must not wipe the store.
 */
export function assertValidPrefix(prefix: string): void {
  if (typeof prefix !== 'string' || prefix.length === 0) throw new InvalidBlobKeyError(String(prefix), 'empty prefix');
  const slash = prefix.lastIndexOf('/');
  if (slash >= 0) assertValidKey(prefix.slice(0, slash));
  if (FORBIDDEN.test(prefix)) throw new InvalidBlobKeyError(prefix, 'contains a control character or a lone surrogate');
}
