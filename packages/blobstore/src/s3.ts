// S3 backend: objects in one bucket, presigned URLs straight to S3 (uploads bypass our servers,
// so the Storage service checks size and type afterwards with head() and sniffContentType()).
import {
  AbortMultipartUploadCommand,
  CopyObjectCommand,
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListMultipartUploadsCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  type S3ClientConfig,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import type { Readable } from 'node:stream';
import { contentDisposition } from './content-disposition.js';
import { BlobRangeError } from './errors.js';
import { assertValidKey, assertValidPrefix, keyFileName } from './keys.js';
import { putStream } from './s3-put.js';
import {
  BlobNotFoundError,
  type BlobHead,
  type BlobStore,
  type SignDownloadOptions,
  type SignUploadOptions,
  type SignedUrl,
} from './types.js';

export interface S3BlobStoreOptions {
  /** For S3-compatible stores (MinIO, s3rver...); AWS S3 itself needs none. */
  endpoint?: string;
  region: string;
  bucket: string;
  /** Both or neither; without them the SDK's default chain (env, IAM role...) applies. */
  accessKeyId?: string;
  secretAccessKey?: string;
  forcePathStyle?: boolean;
  /** Endpoint put into presigned URLs when clients reach S3 by another address than we do. */
  publicEndpoint?: string;
  /** Keys per ListObjectsV2 page in deletePrefix (S3's maximum is 1000). */
  listPageSize?: number;
  /** A request whose connection carries no byte for this long fails (default 15 s; the SDK tries 3 times). */
  idleTimeoutMs?: number;
}

export interface S3BlobStore extends BlobStore {
  readonly kind: 's3';
  readonly bucket: string;
  /** How this store's SDK client is configured (endpoint, credentials, timeouts), for another S3 client of the same bucket. */
  readonly clientConfig: S3ClientConfig;
  /**
   * Copies an object within the bucket, inside S3 (no byte crosses this process); up to 5 GiB,
   * S3's limit for one CopyObject. Throws BlobNotFoundError when the source is absent.
   */
  copy(fromKey: string, toKey: string): Promise<void>;
  /** Keys of the objects under a prefix (any key: no check that they are blob keys). */
  listKeys(prefix: string): AsyncIterable<string>;
  /** Multipart uploads started and neither completed nor aborted, under a prefix. */
  listMultipartUploads(prefix: string): AsyncIterable<{ key: string; uploadId: string }>;
  /** Aborts a multipart upload (its parts go); one already gone is no error. */
  abortMultipartUpload(key: string, uploadId: string): Promise<void>;
  /** Closes the SDK's pooled connections. */
  destroy(): void;
}

export function createS3BlobStore(options: S3BlobStoreOptions): S3BlobStore {
  const { bucket } = options;
  const clientConfig = (endpoint: string | undefined): S3ClientConfig => ({
    region: options.region,
    endpoint,
    forcePathStyle: options.forcePathStyle,
    credentials:
      options.accessKeyId && options.secretAccessKey
        ? { accessKeyId: options.accessKeyId, secretAccessKey: options.secretAccessKey }
        : undefined,
    // Checksums only where S3 demands them: S3-compatible stores often reject the default ones,
    // and presigned PUT URLs would otherwise carry a checksum of an empty body, which real S3
    // then refuses for any actual body.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    // An unreachable endpoint fails each attempt within 3 s instead of the OS's minutes-long
    // connect timeout; a frozen one (connected, silent: a paused or overloaded store) after the
    // idle timeout instead of never. Only silence counts: a slow transfer that moves is not cut.
    requestHandler: { connectionTimeout: 3000, socketTimeout: options.idleTimeoutMs ?? 15_000 },
  });
  const client = new S3Client(clientConfig(options.endpoint));
  const presigner = options.publicEndpoint ? new S3Client(clientConfig(options.publicEndpoint)) : client;
  const pageSize = options.listPageSize ?? 1000;

  return {
    kind: 's3',
    bucket,
    clientConfig: clientConfig(options.endpoint),

    async copy(fromKey: string, toKey: string): Promise<void> {
      assertValidKey(fromKey);
      assertValidKey(toKey);
      const CopySource = `${bucket}/${fromKey.split('/').map(encodeURIComponent).join('/')}`;
      try {
        await client.send(new CopyObjectCommand({ Bucket: bucket, Key: toKey, CopySource }));
      } catch (err) {
        if (isNotFound(err)) throw new BlobNotFoundError(fromKey);
        throw err;
      }
    },

    async put(key: string, body: Readable, opts?: { maxBytes?: number; contentType?: string }): Promise<{ size: number }> {
      assertValidKey(key);
      return putStream(client, body, { bucket, key, maxBytes: opts?.maxBytes, contentType: opts?.contentType });
    },

    async *listKeys(prefix: string): AsyncIterable<string> {
      let token: string | undefined;
      do {
        const page = await client.send(
          new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ContinuationToken: token, MaxKeys: pageSize }),
        );
        for (const o of page.Contents ?? []) if (o.Key) yield o.Key;
        token = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (token);
    },

    async *listMultipartUploads(prefix: string): AsyncIterable<{ key: string; uploadId: string }> {
      let KeyMarker: string | undefined;
      let UploadIdMarker: string | undefined;
      for (;;) {
        const page = await client.send(new ListMultipartUploadsCommand({ Bucket: bucket, Prefix: prefix, KeyMarker, UploadIdMarker }));
        for (const u of page.Uploads ?? []) if (u.Key && u.UploadId) yield { key: u.Key, uploadId: u.UploadId };
        if (!page.IsTruncated) return;
        KeyMarker = page.NextKeyMarker;
        UploadIdMarker = page.NextUploadIdMarker;
      }
    },

    async abortMultipartUpload(key: string, uploadId: string): Promise<void> {
      try {
        await client.send(new AbortMultipartUploadCommand({ Bucket: bucket, Key: key, UploadId: uploadId }));
      } catch (err) {
        if (!isNotFound(err) && (err as { name?: string }).name !== 'NoSuchUpload') throw err;
      }
    },

    async get(key: string, range?: { start: number; end?: number }): Promise<Readable> {
      assertValidKey(key);
      // Checked here as on disk: a malformed Range header would make S3 silently send everything.
      if (range && (!Number.isSafeInteger(range.start) || range.start < 0 || (range.end !== undefined && range.end < range.start))) {
        throw new BlobRangeError(key, range.start);
      }
      const Range = range ? `bytes=${range.start}-${range.end ?? ''}` : undefined;
      try {
        const out = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key, Range }));
        return out.Body as Readable; // an IncomingMessage under Node
      } catch (err) {
        if (isNotFound(err)) throw new BlobNotFoundError(key);
        if (status(err) === 416 && range) throw new BlobRangeError(key, range.start);
        throw err;
      }
    },

    async head(key: string): Promise<BlobHead | null> {
      assertValidKey(key);
      try {
        const out = await client.send(new HeadObjectCommand({ Bucket: bucket, Key: key }));
        return { size: out.ContentLength ?? 0, ...(out.ContentType ? { contentType: out.ContentType } : {}) };
      } catch (err) {
        if (isNotFound(err)) return null;
        throw err;
      }
    },

    async delete(key: string): Promise<void> {
      assertValidKey(key);
      await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: key }));
    },

    async deletePrefix(prefix: string): Promise<number> {
      assertValidPrefix(prefix);
      let count = 0;
      let token: string | undefined;
      do {
        const page = await client.send(
          new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ContinuationToken: token, MaxKeys: pageSize }),
        );
        const objects = (page.Contents ?? []).flatMap((o) => (o.Key ? [{ Key: o.Key }] : []));
        if (objects.length > 0) {
          const out = await client.send(new DeleteObjectsCommand({ Bucket: bucket, Delete: { Objects: objects, Quiet: true } }));
          if (out.Errors?.length)
            throw new Error(
              `S3 refused to delete ${out.Errors.length} objects under ${prefix}: ${out.Errors[0]?.Message ?? out.Errors[0]?.Code}`,
            );
          count += objects.length;
        }
        token = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (token);
      return count;
    },

    async signUpload(key: string, opts: SignUploadOptions): Promise<SignedUrl> {
      assertValidKey(key);
      // If-None-Match: * makes S3 refuse a second PUT to the key (412), so an upload URL is
      // single-use even while it is valid. It is signed, not merely suggested: a client that
      // drops the header gets 403 instead of overwriting. (s3rver ignores it.) maxBytes cannot
      // be enforced by a presigned PUT; S3 caps a PUT at 5 GiB and the Storage service checks
      // the size with head() afterwards.
      const command = new PutObjectCommand({ Bucket: bucket, Key: key, IfNoneMatch: '*' });
      const url = await getSignedUrl(presigner, command, { expiresIn: opts.expiresInSeconds });
      return { url, method: 'PUT', headers: { 'If-None-Match': '*' }, expiresInSeconds: opts.expiresInSeconds };
    },

    async signDownload(key: string, opts: SignDownloadOptions): Promise<SignedUrl> {
      assertValidKey(key);
      const command = new GetObjectCommand({
        Bucket: bucket,
        Key: key,
        ResponseContentType: opts.contentType,
        ResponseContentDisposition: contentDisposition(opts.fileName ?? keyFileName(key)),
      });
      const url = await getSignedUrl(presigner, command, { expiresIn: opts.expiresInSeconds });
      return { url, method: 'GET', headers: {}, expiresInSeconds: opts.expiresInSeconds };
    },

    destroy(): void {
      client.destroy();
      if (presigner !== client) presigner.destroy();
    },
  };
}

function status(err: unknown): number | undefined {
  return (err as { $metadata?: { httpStatusCode?: number } } | undefined)?.$metadata?.httpStatusCode;
}

function isNotFound(err: unknown): boolean {
  const name = (err as { name?: string } | undefined)?.name;
  // A missing bucket is a configuration fault, not a missing blob.
  return name !== 'NoSuchBucket' && (name === 'NoSuchKey' || name === 'NotFound' || status(err) === 404);
}
