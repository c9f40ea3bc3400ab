// HMAC-signed URLs of the Storage service's listener: `${publicBaseUrl}/blob/<key>?method&expires&...&sig`
// (local disk: uploads and downloads; S3 with S3_UPLOADS=storage: uploads).
// The signature covers method, key, expiry and every other parameter the handler acts on, so
// none of them can be changed without invalidating the URL.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { BlobHttpError } from './errors.js';
import { assertValidKey } from './keys.js';
import type { SignDownloadOptions, SignUploadOptions, SignedUrl } from './types.js';

export const BLOB_PATH = '/blob/';

export interface SignedClaims {
  method: 'PUT' | 'GET';
  key: string;
  /** Unix time in seconds after which the URL no longer works. */
  expires: number;
  /** PUT only: the most bytes the upload may have. */
  maxBytes?: number;
  /** GET only: what to send as Content-Type / Content-Disposition file name. */
  contentType?: string;
  fileName?: string;
}

function signature(secret: string, c: SignedClaims): Buffer {
  // A JSON array: no separator inside a key or file name can shift one field into another.
  const payload = JSON.stringify(['v1', c.method, c.key, c.expires, c.maxBytes ?? null, c.contentType ?? null, c.fileName ?? null]);
  return createHmac('sha256', secret).update(payload).digest();
}

export function encodeKeyPath(key: string): string {
  return key.split('/').map(encodeURIComponent).join('/');
}

export function buildSignedUrl(publicBaseUrl: string, secret: string, claims: SignedClaims): string {
  const query = new URLSearchParams({ method: claims.method, expires: String(claims.expires) });
  if (claims.maxBytes !== undefined) query.set('max', String(claims.maxBytes));
  if (claims.contentType !== undefined) query.set('type', claims.contentType);
  if (claims.fileName !== undefined) query.set('name', claims.fileName);
  query.set('sig', signature(secret, claims).toString('base64url'));
  return `${publicBaseUrl.replace(/\/+$/, '')}${BLOB_PATH}${encodeKeyPath(claims.key)}?${query}`;
}

const invalid = () => new BlobHttpError(403, 'The signature of this URL is not valid.');
/** The answer to a signed URL past its expiry. */
export const expiredUrl = () => new BlobHttpError(403, 'This URL has expired.');

/** How a signed target is checked. */
export interface VerifyOptions {
  /**
   * Returns the claims of an authentic URL past its expiry (the caller decides): a resumable
   * upload created in time outlives its URL while it moves (decision 0012).
   */
  acceptExpired?: boolean;
}

/**
 * Checks a request target (path and query, as in `req.url`) against the secret and the clock.
 * `basePath` is the path of publicBaseUrl; it may be present or already stripped by a proxy.
 * Throws BlobHttpError 403 for anything tampered, malformed or expired (unless acceptExpired).
 */
export function verifySignedTarget(
  target: string,
  basePath: string,
  secret: string,
  nowMs: number,
  opts: VerifyOptions = {},
): SignedClaims {
  const url = new URL(target, 'http://placeholder');
  let path = url.pathname;
  const base = basePath.replace(/\/+$/, '');
  if (base && path.startsWith(base + BLOB_PATH)) path = path.slice(base.length);
  if (!path.startsWith(BLOB_PATH)) throw new BlobHttpError(404, 'Not found.');
  let key: string;
  try {
    key = path.slice(BLOB_PATH.length).split('/').map(decodeURIComponent).join('/');
  } catch {
    throw invalid();
  }
  const q = url.searchParams;
  const method = q.get('method');
  const expires = Number(q.get('expires'));
  if ((method !== 'PUT' && method !== 'GET') || !Number.isSafeInteger(expires)) throw invalid();
  const claims: SignedClaims = { method, key, expires };
  if (q.has('max')) {
    claims.maxBytes = Number(q.get('max'));
    if (!Number.isSafeInteger(claims.maxBytes)) throw invalid();
  }
  if (q.has('type')) claims.contentType = q.get('type')!;
  if (q.has('name')) claims.fileName = q.get('name')!;
  const given = Buffer.from(q.get('sig') ?? '', 'base64url');
  const expected = signature(secret, claims);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw invalid();
  // Only now is the expiry trustworthy.
  if (nowMs > expires * 1000 && !opts.acceptExpired) throw expiredUrl();
  return claims;
}

export interface UrlSignerOptions {
  /** Base URL clients reach the Storage service's signed-URL listener at, e.g. http://host:port. */
  publicBaseUrl: string;
  /** HMAC key; every instance that verifies these URLs needs the same one. */
  secret: string;
  /** Clock in milliseconds, for tests of expiry. */
  now?: () => number;
}

/** Signs and verifies the listener's URLs, whatever backend holds the bytes. */
export interface UrlSigner {
  signUpload(key: string, options: SignUploadOptions): SignedUrl;
  signDownload(key: string, options: SignDownloadOptions): SignedUrl;
  /** Verifies `req.url` of a signed-URL request; throws BlobHttpError (403/404) otherwise. */
  verifySignedTarget(target: string, opts?: VerifyOptions): SignedClaims;
}

export function createUrlSigner(options: UrlSignerOptions): UrlSigner {
  if (!options.secret) throw new Error('Signed URLs need a non-empty signing secret.');
  const now = options.now ?? Date.now;
  const basePath = new URL(options.publicBaseUrl).pathname;
  const expiry = (expiresInSeconds: number) => Math.ceil((now() + expiresInSeconds * 1000) / 1000);
  const signed = (claims: SignedClaims, expiresInSeconds: number): SignedUrl => ({
    url: buildSignedUrl(options.publicBaseUrl, options.secret, claims),
    method: claims.method,
    headers: {},
    expiresInSeconds,
  });
  return {
    signUpload(key, opts) {
      assertValidKey(key);
      return signed({ method: 'PUT', key, expires: expiry(opts.expiresInSeconds), maxBytes: opts.maxBytes }, opts.expiresInSeconds);
    },
    signDownload(key, opts) {
      assertValidKey(key);
      const claims: SignedClaims = { method: 'GET', key, expires: expiry(opts.expiresInSeconds) };
      if (opts.contentType !== undefined) claims.contentType = opts.contentType;
      if (opts.fileName !== undefined) claims.fileName = opts.fileName;
      return signed(claims, opts.expiresInSeconds);
    },
    verifySignedTarget: (target, opts) => verifySignedTarget(target, basePath, options.secret, now(), opts),
  };
}
