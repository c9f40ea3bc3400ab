// Every call to the object store through one guard (a circuit breaker: platform's
// dependencyGuard), applied once where the Storage service opens its blob store; and which
// errors mean "S3 cannot be reached" rather than an answer (no such key, too large, bad range).
import { BlobRangeError, InvalidBlobKeyError } from './errors.js';
import { BlobNotFoundError, BlobTooLargeError, type BlobStore } from './types.js';

export interface BlobGuard {
  /** Runs one call; may throw its own error instead (e.g. 503 while the breaker is open). */
  run<T>(call: () => Promise<T>): Promise<T>;
  /** Throws while the store is known to be down. */
  assertAvailable(): void;
}

/**
 * The same store with every call run through `guard`. Presigning makes no request, so it only
 * checks the guard: while S3 is known to be down no URL that cannot work is handed out (and a
 * presign never counts as the trial call that closes a half-open breaker).
 */
export function guardBlobStore(store: BlobStore, guard: BlobGuard): BlobStore {
  const guarded: BlobStore = {
    kind: store.kind,
    async put(key, body, options) {
      try {
        return await guard.run(() => store.put(key, body, options));
      } catch (err) {
        if (!body.destroyed) body.destroy(); // refused before (or while) reading: release the source
        throw err;
      }
    },
    get: (key, range) => guard.run(() => store.get(key, range)),
    head: (key) => guard.run(() => store.head(key)),
    delete: (key) => guard.run(() => store.delete(key)),
    deletePrefix: (prefix) => guard.run(() => store.deletePrefix(prefix)),
    async signUpload(key, options) {
      guard.assertAvailable();
      return store.signUpload(key, options);
    },
    async signDownload(key, options) {
      guard.assertAvailable();
      return store.signDownload(key, options);
    },
  };
  if (store.localPath) guarded.localPath = (key) => store.localPath!(key);
  if (store.putFile) guarded.putFile = (key, source, options) => guard.run(() => store.putFile!(key, source, options));
  return guarded;
}

const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EHOSTDOWN',
  'ENETDOWN',
  'EAI_AGAIN',
  'ENOTFOUND',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
]);
const NETWORK_PATTERN = new RegExp(`\\b(${[...NETWORK_CODES].join('|')})\\b`);
/** SDK errors of a request that never got an answer. */
const NETWORK_NAMES = new Set(['TimeoutError', 'RequestTimeout', 'RequestTimeoutException', 'NetworkingError']);

/**
 * True when the object store could not be reached or is failing: connection refused, reset or
 * timed out, or a 5xx answer (S3's 500 InternalError, 503 SlowDown/ServiceUnavailable). Missing
 * keys, oversize blobs, bad ranges and 4xx answers are answers, not outages.
 */
export function isBlobStoreOutage(err: unknown): boolean {
  if (
    err instanceof BlobNotFoundError ||
    err instanceof BlobTooLargeError ||
    err instanceof BlobRangeError ||
    err instanceof InvalidBlobKeyError
  )
    return false;
  if (typeof err !== 'object' || err === null) return false;
  const e = err as { code?: unknown; name?: unknown; errors?: unknown; cause?: unknown; $metadata?: { httpStatusCode?: number } };
  if (typeof e.code === 'string' && NETWORK_CODES.has(e.code)) return true;
  // The SDK wraps what it does not recognise as an Error (a socket error from another realm, as
  // under jest) in a new Error that keeps only the text.
  const message = (err as { message?: unknown }).message;
  if (typeof message === 'string' && message.startsWith('AWS SDK error wrapper for') && NETWORK_PATTERN.test(message)) return true;
  if (typeof e.name === 'string' && NETWORK_NAMES.has(e.name)) return true;
  const status = e.$metadata?.httpStatusCode;
  if (typeof status === 'number') return status >= 500;
  // Connecting to several addresses fails with an AggregateError of each attempt's error.
  if (Array.isArray(e.errors)) return e.errors.some(isBlobStoreOutage);
  return e.cause !== undefined && e.cause !== err && isBlobStoreOutage(e.cause);
}
