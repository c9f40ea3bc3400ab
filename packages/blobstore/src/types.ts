// Where file bytes live. Two backends behind one interface: local disk under DATA_DIR (with
// HMAC-signed URLs served by the Storage service's own HTTP endpoint) and S3-compatible storage
// (presigned URLs). Always streams: no method holds a whole file in memory.
import type { Readable } from 'node:stream';
import type { LocalSource } from './local-source.js';

export interface BlobHead {
  size: number;
  contentType?: string;
}

export interface SignedUrl {
  url: string;
  method: 'PUT' | 'GET';
  /** Headers the client must send with the request (PUT). */
  headers: Record<string, string>;
  expiresInSeconds: number;
}

export interface SignUploadOptions {
  expiresInSeconds: number;
  /** Upper bound the backend enforces where it can (local disk: always). */
  maxBytes: number;
}

export interface SignDownloadOptions {
  expiresInSeconds: number;
  /** Content-Type to serve. */
  contentType?: string;
  /** File name for Content-Disposition. */
  fileName?: string;
}

export interface BlobStore {
  readonly kind: 'local' | 's3';
  /**
   * Streams `body` into `key`; resolves with the number of bytes written. Refuses beyond maxBytes.
   * `freeWritten`: the body's chunks are its own, free each once written (local disk; see
   * DurableFileOptions); other backends ignore it.
   */
  put(key: string, body: Readable, options?: { maxBytes?: number; contentType?: string; freeWritten?: boolean }): Promise<{ size: number }>;
  /** Streams the blob (optionally a byte range, inclusive end). Throws BlobNotFoundError. */
  get(key: string, range?: { start: number; end?: number }): Promise<Readable>;
  /** Size and type, or null when absent. */
  head(key: string): Promise<BlobHead | null>;
  /** Idempotent. */
  delete(key: string): Promise<void>;
  /** Deletes every blob whose key starts with prefix; returns how many. */
  deletePrefix(prefix: string): Promise<number>;
  signUpload(key: string, options: SignUploadOptions): Promise<SignedUrl>;
  signDownload(key: string, options: SignDownloadOptions): Promise<SignedUrl>;
  /** Local-disk backend only: the file's path, for same-host staging without a copy over the network. */
  localPath?(key: string): string;
  /** Local-disk backend only: takes in a checked file of this host (see openLocalSource) without streaming it. */
  putFile?(key: string, source: LocalSource, options?: { maxBytes?: number }): Promise<{ size: number }>;
}

export class BlobNotFoundError extends Error {
  constructor(key: string) {
    super(`blob not found: ${key}`);
    this.name = 'BlobNotFoundError';
  }
}

export class BlobTooLargeError extends Error {
  constructor(
    readonly size: number,
    readonly maxBytes: number,
  ) {
    super(`blob exceeds ${maxBytes} bytes`);
    this.name = 'BlobTooLargeError';
  }
}
