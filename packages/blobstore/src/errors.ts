// Errors beyond the ones in types.ts. Callers match on the class, never on the text.

/** An error the signed-URL handler turns into an HTTP answer `{ ok: false, error: message }`. */
export class BlobHttpError extends Error {
  /** retryAfterSec: sent as Retry-After (a 503 the client should retry). */
  constructor(
    readonly status: number,
    message: string,
    readonly retryAfterSec?: number,
  ) {
    super(message);
    this.name = 'BlobHttpError';
  }
}

/** A range starting at or beyond the end of the blob (S3 answers 416 InvalidRange; disk matches it). */
export class BlobRangeError extends Error {
  /** size: when the backend reports it. */
  constructor(
    readonly key: string,
    readonly start: number,
    readonly size?: number,
  ) {
    super(`range start ${start} is not within blob ${key}${size === undefined ? '' : ` of ${size} bytes`}`);
    this.name = 'BlobRangeError';
  }
}

/** A key neither backend can store safely (see keys.ts). */
export class InvalidBlobKeyError extends Error {
  constructor(key: string, reason: string) {
    super(`invalid blob key ${JSON.stringify(key)}: ${reason}`);
    this.name = 'InvalidBlobKeyError';
  }
}
