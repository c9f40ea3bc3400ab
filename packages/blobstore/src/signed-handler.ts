// The HTTP side of the listener's signed URLs, mounted by the Storage service on its own HTTP/1.1
// listener, over any BlobStore: verifies the URL (a UrlSigner's check), then streams uploads into
// the store (local disk; S3 with S3_UPLOADS=storage) and downloads out of a local one (never a
// whole file in memory). The service's rules (single use, registration, file type) live in the hooks.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { open } from 'node:fs/promises';
import { ByteCounter, SNIFF_BYTES } from './byte-counter.js';
import { contentDisposition } from './content-disposition.js';
import { isMissing } from './disk-walk.js';
import { BlobHttpError } from './errors.js';
import { parseRange } from './http-range.js';
import { keyFileName } from './keys.js';
import { sendFileRange } from './send-file.js';
import { detectContentType } from './sniff.js';
import { BlobTooLargeError, type BlobStore } from './types.js';
import type { UrlSigner } from './url-signing.js';

export interface SignedBlobHooks {
  /**
   * Before any byte is read. Throw BlobHttpError to refuse (409 reused URL, 403 too large...). May
   * give the name the user knows the file by (a key's last segment is an id), for later refusals.
   */
  // biome-ignore lint/suspicious/noConfusingVoidType: a hook with nothing to change returns nothing
  beforeUpload?(key: string, info: { contentLength?: number }): void | { fileName?: string } | Promise<void | { fileName?: string }>;
  /**
   * An upload that beforeUpload let in did not end stored (the client dropped, too large, a
   * store error): the URL may be used again while it is valid.
   */
  uploadFailed?(key: string): void | Promise<void>;
  /** After the blob is stored. If it throws, the blob is removed again and the error answered. */
  afterUpload?(key: string, info: { size: number; contentType: string | null }): void | Promise<void>;
  /** Before a download. Throw BlobHttpError to refuse; may override what the URL carries. */
  // biome-ignore lint/suspicious/noConfusingVoidType: a hook with nothing to change returns nothing
  beforeDownload?(key: string): void | DownloadOverrides | Promise<void | DownloadOverrides>;
  /** Unexpected errors (answered 500), for logging, with the answer's X-Request-Id when it has one. */
  onError?(err: unknown, requestId?: string): void;
  /** An error of the store while receiving (a full disk, say) as the answer to send instead of 500. */
  storeFailure?(err: unknown): BlobHttpError | undefined;
}

export interface DownloadOverrides {
  contentType?: string | null;
  fileName?: string;
}

/** What the handler checks each request's URL with (a UrlSigner, or the local-disk store itself). */
export type SignedUrlVerifier = Pick<UrlSigner, 'verifySignedTarget'>;

export function createSignedBlobHandler(
  store: BlobStore,
  verifier: SignedUrlVerifier,
  hooks: SignedBlobHooks = {},
): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    handle(store, verifier, hooks, req, res).catch((err: unknown) => {
      if (err instanceof BlobHttpError) {
        if (err.retryAfterSec !== undefined && !res.headersSent) res.setHeader('Retry-After', String(err.retryAfterSec));
        return sendJson(req, res, err.status, { ok: false, error: err.message });
      }
      // A client that went away mid-upload is no fault of ours: nobody is left to answer.
      if (!req.complete && req.socket.destroyed) return void res.destroy();
      const requestId = res.getHeader('X-Request-Id');
      hooks.onError?.(err, typeof requestId === 'string' ? requestId : undefined);
      sendJson(req, res, 500, { ok: false, error: 'The storage service failed to handle this request.' });
    });
  };
}

async function handle(
  store: BlobStore,
  verifier: SignedUrlVerifier,
  hooks: SignedBlobHooks,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const method = req.method ?? '';
  if (method !== 'PUT' && method !== 'GET' && method !== 'HEAD') {
    res.setHeader('Allow', 'GET, HEAD, PUT');
    throw new BlobHttpError(405, `The method ${method} is not allowed here.`);
  }
  const claims = verifier.verifySignedTarget(req.url ?? '/');
  // The method is part of the signature: a download URL cannot upload and the reverse.
  if ((method === 'PUT') !== (claims.method === 'PUT')) throw new BlobHttpError(403, `This URL does not allow ${method} requests.`);
  if (method === 'PUT') await upload(store, hooks, claims.key, claims.maxBytes ?? Number.POSITIVE_INFINITY, req, res);
  else await download(store, hooks, claims.key, { contentType: claims.contentType, fileName: claims.fileName }, req, res);
}

async function upload(
  store: BlobStore,
  hooks: SignedBlobHooks,
  key: string,
  maxBytes: number,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  // Counts (cutting off chunked bodies past maxBytes) and keeps the first bytes for sniffing.
  const counter = new ByteCounter(maxBytes, SNIFF_BYTES);
  // pipe, not pipeline: a refusal must not destroy the request, or the client never reads the 403.
  // The limit can trip before store.put has attached its pipeline (the request flows in while
  // the temp file is made); the error is kept on the stream and put's pipeline reports it.
  counter.on('error', () => undefined);
  // Wired before the first await: a client gone during beforeUpload must end the counter too,
  // or store.put would wait for its end forever, holding a temp file.
  req.on('error', (err) => counter.destroy(err));
  req.on('close', () => {
    if (!req.complete) counter.destroy(new Error('The upload was interrupted.'));
  });

  const declared = req.headers['content-length'];
  const contentLength = declared !== undefined && /^\d+$/.test(declared) ? Number(declared) : undefined;
  const fileName = (await hooks.beforeUpload?.(key, contentLength === undefined ? {} : { contentLength }))?.fileName ?? keyFileName(key);
  try {
    await receive(store, hooks, key, fileName, maxBytes, contentLength, counter, req, res);
  } catch (err) {
    await Promise.resolve(hooks.uploadFailed?.(key)).catch((e: unknown) => hooks.onError?.(e));
    throw err;
  }
}

async function receive(
  store: BlobStore,
  hooks: SignedBlobHooks,
  key: string,
  fileName: string,
  maxBytes: number,
  contentLength: number | undefined,
  counter: ByteCounter,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  if (contentLength !== undefined && contentLength > maxBytes) throw tooLarge(fileName, contentLength, maxBytes);
  req.pipe(counter);
  let size: number;
  try {
    // The request's chunks pass through the counters untouched and nothing else keeps them.
    ({ size } = await store.put(key, counter, { freeWritten: true }));
  } catch (err) {
    if (err instanceof BlobTooLargeError) throw tooLarge(fileName, err.size, maxBytes);
    throw hooks.storeFailure?.(err) ?? err;
  }
  const contentType = await detectContentType(counter.head);
  try {
    await hooks.afterUpload?.(key, { size, contentType });
  } catch (err) {
    await store.delete(key); // not recorded, so not kept
    throw err;
  }
  sendJson(req, res, 200, { ok: true });
}

async function download(
  store: BlobStore,
  hooks: SignedBlobHooks,
  key: string,
  signed: DownloadOverrides,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const overrides = (await hooks.beforeDownload?.(key)) ?? {};
  // Only a local store's blobs are served here (S3 downloads are presigned S3 URLs).
  if (!store.localPath) throw new BlobHttpError(404, 'The file does not exist.');
  let handle;
  try {
    handle = await open(store.localPath(key), 'r');
  } catch (err) {
    if (isMissing(err)) throw new BlobHttpError(404, 'The file does not exist.');
    throw err;
  }
  try {
    // Size and bytes from one descriptor: a concurrent replace cannot mismatch them.
    const info = await handle.stat();
    if (!info.isFile()) throw new BlobHttpError(404, 'The file does not exist.');
    const size = info.size;
    const contentType = overrides.contentType ?? signed.contentType ?? 'application/octet-stream';
    res.setHeader('Content-Type', contentType);
    res.setHeader('Content-Disposition', contentDisposition(overrides.fileName ?? signed.fileName ?? keyFileName(key)));
    res.setHeader('Accept-Ranges', 'bytes');
    // User content: browsers must neither guess another type nor keep it in shared caches.
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Cache-Control', 'private, no-store');
    const range = parseRange(req.headers.range, size);
    if (range.kind === 'unsatisfiable') {
      res.setHeader('Content-Range', `bytes */${size}`);
      res.removeHeader('Content-Disposition');
      throw new BlobHttpError(416, 'The requested range is not within the file.');
    }
    const start = range.kind === 'range' ? range.start : 0;
    const end = range.kind === 'range' ? range.end : size - 1;
    res.statusCode = range.kind === 'range' ? 206 : 200;
    if (range.kind === 'range') res.setHeader('Content-Range', `bytes ${start}-${end}/${size}`);
    res.setHeader('Content-Length', String(size === 0 ? 0 : end - start + 1));
    if (req.method === 'HEAD' || size === 0) {
      res.end();
      return;
    }
    // A client going away mid-download is normal; it only ends this response.
    await sendFileRange(handle, res, start, end).catch(() => res.destroy());
  } finally {
    await handle.close();
  }
}

/** The spec's text, sizes written as the rest of the API writes them ("5000.00 MB"). */
function tooLarge(fileName: string, size: number, maxBytes: number): BlobHttpError {
  return new BlobHttpError(
    403,
    `File '${fileName}' size (${(size / 1e6).toFixed(2)} MB) exceeds max file size limit of ${formatLimit(maxBytes)}.`,
  );
}

function formatLimit(bytes: number): string {
  if (bytes % 1e9 === 0) return `${bytes / 1e9} GB`;
  if (bytes % 1e6 === 0) return `${bytes / 1e6} MB`;
  return `${bytes} bytes`;
}

function sendJson(req: IncomingMessage, res: ServerResponse, status: number, body: unknown): void {
  if (res.headersSent) {
    res.destroy(); // mid-download: nothing sensible left to say
    return;
  }
  const text = JSON.stringify(body);
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(text));
  // An unread request body (refused upload) must not be read to its end: close the connection
  // once the answer is out instead of keeping it alive.
  if (!req.complete) res.setHeader('Connection', 'close');
  res.end(req.method === 'HEAD' ? undefined : text);
}
