// Resumable uploads (tus 1.0, issue 44) on the local-disk signed upload URL, beside its plain PUT.
// The signed URL is the upload itself: POST to it creates the upload (its Location is the same
// URL), HEAD gives the offset, PATCH appends, DELETE ends it. @tus/server speaks the protocol; the
// parts live in a FileStore (PartFileStore: a part file, on disk before each PATCH is answered, and
// its JSON record) under DATA_DIR/storage/tus, so they survive a restart; the completed part is
// hard-linked into the blob the plain PUT writes.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { Server, type Upload } from '@tus/server';
import { BLOB_PATH, BlobHttpError, openLocalSource, sniffContentType, type LocalDiskBlobStore } from '@media/blobstore';
import { DomainError, Errors, type DiskReserve } from '@media/platform';
import type { FileDoc, StorageRepository } from '../domain/ports.js';
import { PartFileStore } from './tus-part-store.js';
import { MAX_FILE_BYTES } from '../domain/rules.js';

export interface TusUploadsDeps {
  blobs: LocalDiskBlobStore;
  repo: StorageRepository;
  /** Where part files and their records live: on the blobs' filesystem, so completion is a link. */
  partsDir: string;
  /** Base of the signed URLs, as POST /file hands them out (the Location of a created upload). */
  publicBaseUrl: string;
  now?: () => Date;
  disk?: DiskReserve;
  /** The origins browsers may upload from (the console's); unset: any (CORS `*`). */
  allowedOrigins?: string[];
  onError?: (err: unknown) => void;
}

/** An answer @tus/server sends as it is (status and body). */
interface TusRefusal {
  status_code: number;
  body: string;
}

export const USED_URL_MESSAGE = 'This upload URL has already been used.';
export const UPLOAD_EXISTS_MESSAGE =
  'A resumable upload was already created on this URL: resume it (HEAD for its offset, then PATCH), or end it (DELETE).';

/** Upload ids are the blob keys, made one path segment (FileStore names files by id). */
const idOf = (key: string) => Buffer.from(key).toString('base64url');
const keyOf = (id: string) => Buffer.from(id, 'base64url').toString();

const refusal = (status: number, message: string): TusRefusal => ({ status_code: status, body: message });
const fromDomain = (err: DomainError): TusRefusal => refusal(err.status, err.message);

/** A refusal before the tus server is reached, in its plain-text shape (readable by an allowed page). */
function answer(res: ServerResponse, status: number, message: string, origin?: string): void {
  const cors = origin ? { 'Access-Control-Allow-Origin': origin, Vary: 'Origin' } : {};
  res.writeHead(status, { 'Tus-Resumable': '1.0.0', 'Content-Type': 'text/plain; charset=utf-8', ...cors }).end(message);
}

/** A tus request: OPTIONS (discovery), or any request carrying the protocol's header. */
export function isTusRequest(req: IncomingMessage): boolean {
  return req.method === 'OPTIONS' || req.headers['tus-resumable'] !== undefined;
}

export function createTusUploads({
  blobs,
  repo,
  partsDir,
  publicBaseUrl,
  now = () => new Date(),
  disk,
  allowedOrigins,
  onError,
}: TusUploadsDeps) {
  /** The origin a refusal names for the browser: the request's when allowed (as @tus/server does). */
  const corsOrigin = (req: IncomingMessage): string | undefined => {
    const origin = req.headers.origin;
    if (!allowedOrigins) return '*';
    return origin && allowedOrigins.includes(origin) ? origin : undefined;
  };
  const store = new PartFileStore(partsDir);
  /** Verified signed URLs of requests in flight: the tus server finds the upload id here. */
  const verified = new WeakMap<IncomingMessage, { key: string; url: string }>();
  type WithNode = { runtime?: { node?: { req: IncomingMessage; res: ServerResponse } } };
  const claimsOf = (req: unknown) => {
    const raw = (req as WithNode).runtime?.node?.req;
    const claims = raw && verified.get(raw);
    if (!claims) throw refusal(403, 'The signature of this URL is not valid.');
    return claims;
  };

  async function pendingFile(key: string): Promise<FileDoc> {
    const file = await repo.fileByBlobKey(key);
    if (!file) throw refusal(404, Errors.fileNotFound().message);
    if (!(await repo.liveDirectory(file.accountId, file.dirId, now()))) throw refusal(404, Errors.directoryNotFound().message);
    if (file.state === 'uploaded') throw refusal(409, USED_URL_MESSAGE);
    return file;
  }

  /** The largest size the request declares: its Upload-Length, or where its body would end. */
  function declaredSize(req: Request, offset: number): number {
    const sizes = [req.headers.get('upload-length'), offset + Number(req.headers.get('content-length') ?? 0)].map(Number);
    return Math.max(0, ...sizes.filter(Number.isSafeInteger));
  }

  /** The size the request declares, refused past the limit with the spec's sentence. */
  function checkLength(req: Request, file: FileDoc, offset: number): void {
    const size = declaredSize(req, offset);
    if (size > MAX_FILE_BYTES) throw fromDomain(Errors.fileTooLarge(file.fileName, size));
  }

  /** tus's "too large" answer in the spec's words, when the limit is what was passed. */
  async function tooLarge(req: Request): Promise<TusRefusal | undefined> {
    const size = declaredSize(req, Number(req.headers.get('upload-offset') ?? 0));
    if (size <= MAX_FILE_BYTES) return undefined; // past the upload's own length: tus's answer
    const file = await repo.fileByBlobKey(claimsOf(req).key);
    return file ? fromDomain(Errors.fileTooLarge(file.fileName, size)) : undefined;
  }

  const server = new Server({
    path: '/blob',
    datastore: store,
    ...(allowedOrigins ? { allowedOrigins } : {}),
    maxSize: MAX_FILE_BYTES,
    // Stops a body that runs past it (chunked, or a length declared late); sizes declared up
    // front are refused below, and either way the user reads the spec's sentence (tooLarge).
    getFileIdFromRequest: (req) => idOf(claimsOf(req).key),
    namingFunction: (req) => idOf(claimsOf(req).key),
    // The upload is the signed URL itself, as it was handed out.
    generateUrl: (req) => claimsOf(req).url,
    async onIncomingRequest(req, id) {
      const key = keyOf(id);
      const file = await pendingFile(key);
      const part = await store.getUpload(id).catch(() => undefined);
      // FileStore's create truncates: a second creation would drop the parts already in.
      if (req.method === 'POST' && part) throw refusal(409, UPLOAD_EXISTS_MESSAGE);
      // All bytes are in but completing failed (a store error answered the last PATCH): the
      // client's next HEAD completes it, or is refused again: no HEAD reports done a file not stored.
      if (req.method === 'HEAD' && part && !part.sizeIsDeferred && part.offset === part.size) await complete(part, { keepPart: true });
      if (req.method === 'POST' || req.method === 'PATCH') {
        checkLength(req, file, part?.offset ?? 0);
        const length = Number(req.headers.get('content-length') ?? 0);
        await disk?.assertRoom(Number.isSafeInteger(length) ? length : undefined).catch((err: unknown) => {
          if (!(err instanceof DomainError)) throw err;
          // As the plain PUT: 503 with Retry-After, and the upload stays resumable.
          const full = Errors.diskFull();
          if (full.retryAfterSec !== undefined) (req as WithNode).runtime?.node?.res.setHeader('Retry-After', String(full.retryAfterSec));
          throw fromDomain(full);
        });
      }
    },
    async onUploadFinish(_req, upload) {
      await complete(upload);
      return {};
    },
    async onResponseError(req, err) {
      // tus refuses a size past maxSize with its own words: the user gets the spec's sentence.
      if ('status_code' in err) return err.status_code === 413 ? await tooLarge(req) : undefined;
      onError?.(err);
      return refusal(500, 'The storage service failed to handle this request.');
    },
  });

  /** The URL as POST /file handed it out (a proxy may have stripped the base's path). */
  function handedOutUrl(target: URL): string {
    const base = publicBaseUrl.replace(/\/+$/, '');
    const basePath = new URL(base).pathname.replace(/\/+$/, '');
    const path = basePath && target.pathname.startsWith(basePath + BLOB_PATH) ? target.pathname.slice(basePath.length) : target.pathname;
    return `${base}${path}${target.search}`;
  }

  /** Checks the signed URL (an upload URL, unexpired); false when refused (answered). */
  function admit(req: IncomingMessage, res: ServerResponse): boolean {
    try {
      const claims = blobs.verifySignedTarget(req.url ?? '/');
      if (claims.method !== 'PUT') {
        answer(res, 403, `This URL does not allow ${req.method} requests.`, corsOrigin(req));
        return false;
      }
      verified.set(req, { key: claims.key, url: handedOutUrl(new URL(req.url ?? '/', 'http://placeholder')) });
      // Expiration: the upload lives as long as its URL.
      res.setHeader('Upload-Expires', new Date(claims.expires * 1000).toUTCString());
      return true;
    } catch (err) {
      if (err instanceof BlobHttpError) answer(res, err.status, err.message, corsOrigin(req));
      else {
        onError?.(err);
        answer(res, 500, 'The storage service failed to handle this request.', corsOrigin(req));
      }
      return false;
    }
  }

  /** The part becomes the file's blob (a hard link, as a local store does) and the file is listed. */
  /** keepPart: HEAD still answers the finished upload's offset; the sweep removes the part. */
  async function complete(upload: Upload, { keepPart = false } = {}): Promise<void> {
    const key = keyOf(upload.id);
    const file = await pendingFile(key);
    // The plain PUT's claim: one of the two ways in wins; a PUT in flight makes this one 409.
    if (!(await repo.claimUpload(file._id))) throw refusal(409, USED_URL_MESSAGE);
    try {
      const source = await openLocalSource(partsDir, join(partsDir, upload.id));
      try {
        await blobs.putFile(key, source, { maxBytes: MAX_FILE_BYTES });
      } finally {
        await source.handle.close();
      }
      const contentType = await sniffContentType(blobs, key);
      if (!(await repo.completeUpload(file._id, source.size, contentType))) throw refusal(409, USED_URL_MESSAGE);
    } catch (err) {
      await repo.releaseUpload(file._id);
      throw err;
    }
    if (!keepPart) await store.remove(upload.id);
  }

  return {
    /** Answers a tus request on a signed upload URL (see isTusRequest). */
    handle(req: IncomingMessage, res: ServerResponse): void {
      if (req.method !== 'OPTIONS' && !admit(req, res)) return;
      server.handle(req, res).catch((err: unknown) => {
        onError?.(err);
        if (!res.headersSent) answer(res, 500, 'The storage service failed to handle this request.');
        else res.destroy();
      });
    },

    /**
     * Removes the parts of uploads that can no longer complete: URL expired (the registration's
     * uploadExpiresAt), file deleted or its directory gone, or completed another way.
     */
    async sweep(): Promise<number> {
      let removed = 0;
      const names = await readdir(partsDir).catch(() => [] as string[]);
      for (const name of names.filter((n) => n.endsWith('.json'))) {
        const id = name.slice(0, -'.json'.length);
        const file = await repo.fileByBlobKey(keyOf(id));
        const live =
          file &&
          file.state !== 'uploaded' &&
          file.uploadExpiresAt > now() &&
          (await repo.liveDirectory(file.accountId, file.dirId, now()));
        if (live) continue;
        await store.remove(id).catch(() => undefined);
        removed++;
      }
      return removed;
    },
  };
}

export type TusUploads = ReturnType<typeof createTusUploads>;
