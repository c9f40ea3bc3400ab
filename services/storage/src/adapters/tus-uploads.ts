// Resumable uploads (tus 1.0, issue 44) on the listener's signed upload URL, beside its plain PUT,
// on either backend. The signed URL is the upload itself: POST to it creates the upload (its
// Location is the same URL), HEAD gives the offset, PATCH appends, DELETE ends it. @tus/server
// speaks the protocol; this module holds the service's rules; where the parts live until the
// upload completes is the backend's (TusParts: tus-disk-parts.ts, tus-s3-parts.ts).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Server, type Upload } from '@tus/server';
import { BLOB_PATH, BlobHttpError, expiredUrl, sniffContentType, type BlobStore, type SignedUrlVerifier } from '@media/blobstore';
import { DomainError, Errors, type DiskReserve } from '@media/platform';
import type { AccountGate } from '../domain/account-gate.js';
import type { FileDoc, StorageRepository } from '../domain/ports.js';
import { MAX_FILE_BYTES, UPLOAD_URL_TTL_SEC } from '../domain/rules.js';
import type { TusParts } from './tus-parts.js';

export interface TusUploadsDeps {
  /** Where the completed files are (sniffed there). */
  blobs: BlobStore;
  /** Checks the signed URL of each request. */
  verifier: SignedUrlVerifier;
  repo: StorageRepository;
  /** Where the parts live until the upload completes. */
  parts: TusParts;
  /** Base of the signed URLs, as POST /file hands them out (the Location of a created upload). */
  publicBaseUrl: string;
  now?: () => Date;
  disk?: DiskReserve;
  /** The account's state, checked on each request that creates, appends or completes. */
  accounts?: AccountGate;
  /** The origins browsers may upload from (UPLOAD_CORS_ORIGINS); unset: any (CORS `*`). */
  allowedOrigins?: string[];
  onError?: (err: unknown) => void;
}

/** An answer @tus/server sends as it is (status and body). */
interface TusRefusal {
  status_code: number;
  body: string;
}

export const USED_URL_MESSAGE = 'This upload URL has already been used.';

/**
 * A resumable upload outlives its URL while it moves: each PATCH or POST keeps it for this long
 * after the request ends (the URL's own lifetime, the spec's 5 minutes), renewed every
 * RENEW_EVERY_MS while a request is open; the URL alone still bounds when an upload may start.
 */
const UPLOAD_IDLE_MS = UPLOAD_URL_TTL_SEC * 1000;
const RENEW_EVERY_MS = 15_000;
/**
 * A HEAD finding the file being stored answers 423 (retry) for this long after the claim; past
 * it (a crash left the claim), the request goes on and meets the usual 409.
 */
const STORING_FRESH_MS = 15 * 60_000;
export const UPLOAD_EXISTS_MESSAGE =
  'A resumable upload was already created on this URL: resume it (HEAD for its offset, then PATCH), or end it (DELETE).';

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
  verifier,
  repo,
  parts,
  publicBaseUrl,
  now = () => new Date(),
  disk,
  accounts,
  allowedOrigins,
  onError,
}: TusUploadsDeps) {
  /** The origin a refusal names for the browser: the request's when allowed (as @tus/server does). */
  const corsOrigin = (req: IncomingMessage): string | undefined => {
    const origin = req.headers.origin;
    if (!allowedOrigins) return '*';
    return origin && allowedOrigins.includes(origin) ? origin : undefined;
  };
  const store = parts.datastore;
  // Renewed as each PATCH's bytes are stored, before its answer: the client's next request finds
  // it so (renewWhileOpen covers requests cut midway and long ones).
  const write = store.write.bind(store);
  store.write = async (readable, id, offset) => {
    const end = await write(readable, id, offset);
    const file = end > offset ? await repo.fileByBlobKey(keyOf(id)) : null;
    if (file) await repo.renewUpload(file._id, new Date(now().getTime() + UPLOAD_IDLE_MS));
    return end;
  };
  const idOf = (key: string) => parts.idOf(key);
  const keyOf = (id: string) => parts.keyOf(id) ?? '';
  /** Verified signed URLs of requests in flight: the tus server finds the upload id here. */
  const verified = new WeakMap<IncomingMessage, { key: string; url: string; urlExpiresMs: number }>();
  /** Upload ids with a PATCH or POST open in this process: never swept under their writer. */
  const writing = new Map<string, number>();
  type WithNode = { runtime?: { node?: { req: IncomingMessage; res: ServerResponse } } };
  const claimsOf = (req: unknown) => {
    const raw = (req as WithNode).runtime?.node?.req;
    const claims = raw && verified.get(raw);
    if (!claims) throw refusal(403, 'The signature of this URL is not valid.');
    return claims;
  };

  /** The account may upload (else its 403, or 503 with Retry-After while Auth cannot say). */
  async function activeAccount(file: FileDoc, req?: Request): Promise<void> {
    await accounts?.assertActive(file.accountId).catch((err: unknown) => {
      if (!(err instanceof DomainError)) throw err;
      if (err.retryAfterSec !== undefined)
        (req as WithNode | undefined)?.runtime?.node?.res.setHeader('Retry-After', String(err.retryAfterSec));
      throw fromDomain(err);
    });
  }

  /**
   * While the request is open, and once more when it ends (cut or not), the upload is kept
   * UPLOAD_IDLE_MS from now: a moving upload never expires under its client.
   */
  function renewWhileOpen(req: Request, id: string, file: FileDoc, fromOffset: number): void {
    const res = (req as WithNode).runtime?.node?.res;
    if (!res) return;
    // Only stored bytes renew: a request that brings none (an empty PATCH, a refused one) does not.
    let offset = fromOffset;
    const renew = async () => {
      const until = new Date(now().getTime() + UPLOAD_IDLE_MS); // from when the bytes were in
      const stored = (await store.getUpload(id).catch(() => undefined))?.offset ?? offset;
      if (stored <= offset) return;
      offset = stored;
      await repo.renewUpload(file._id, until);
    };
    const tick = () => void renew().catch((err: unknown) => onError?.(err));
    const timer = setInterval(tick, RENEW_EVERY_MS);
    timer.unref();
    res.once('close', () => {
      clearInterval(timer);
      tick();
    });
  }

  /** The upload is being written by a request of this process until it closes: the sweep leaves it. */
  function markWriting(req: Request, id: string): void {
    const res = (req as WithNode).runtime?.node?.res;
    if (!res) return;
    writing.set(id, (writing.get(id) ?? 0) + 1);
    res.once('close', () => {
      const left = (writing.get(id) ?? 1) - 1;
      if (left > 0) writing.set(id, left);
      else writing.delete(id);
    });
  }

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
      // The URL starts an upload within its life; an upload started lives on while it moves.
      const { urlExpiresMs } = claimsOf(req);
      const expiresMs = part ? Math.max(urlExpiresMs, file.uploadExpiresAt.getTime()) : urlExpiresMs;
      if (now().getTime() > expiresMs) throw refusal(403, expiredUrl().message);
      const writes = req.method === 'POST' || req.method === 'PATCH';
      // From here, not after the checks below (an Auth call may take seconds): no sweep of this
      // process removes the parts under it meanwhile.
      if (writes) markWriting(req, id);
      const expires = writes ? now().getTime() + UPLOAD_IDLE_MS : expiresMs;
      (req as WithNode).runtime?.node?.res.setHeader('Upload-Expires', new Date(expires).toUTCString());
      // A second creation would drop the parts already in (FileStore truncates, S3Store starts over).
      if (req.method === 'POST' && part) throw refusal(409, UPLOAD_EXISTS_MESSAGE);
      // All bytes are in but completing failed (a store error answered the last PATCH): the
      // client's next HEAD completes it, or is refused again: no HEAD reports done a file not stored.
      if (req.method === 'HEAD' && part && !part.sizeIsDeferred && part.offset === part.size) {
        // Storing may take a while (an S3 copy): the listener's idle timeout must not cut it.
        (req as WithNode).runtime?.node?.req.socket.setTimeout(0);
        await complete(part, { keepPart: true, req });
      }
      if (writes) {
        await activeAccount(file, req);
        checkLength(req, file, part?.offset ?? 0);
        const length = Number(req.headers.get('content-length') ?? 0);
        await disk?.assertRoom(Number.isSafeInteger(length) ? length : undefined).catch((err: unknown) => {
          if (!(err instanceof DomainError)) throw err;
          // As the plain PUT: 503 with Retry-After, and the upload stays resumable.
          const full = Errors.diskFull();
          if (full.retryAfterSec !== undefined) (req as WithNode).runtime?.node?.res.setHeader('Retry-After', String(full.retryAfterSec));
          throw fromDomain(full);
        });
        renewWhileOpen(req, id, file, part?.offset ?? 0);
      }
    },
    async onUploadFinish(req, upload) {
      await complete(upload, { req });
      return {};
    },
    async onResponseError(req, err) {
      // tus refuses a size past maxSize with its own words: the user gets the spec's sentence.
      if ('status_code' in err) {
        // A full disk while writing (PartFileStore): retry later, as the reserve's refusal says.
        const full = Errors.diskFull();
        if (err.status_code === 503 && err.body === full.message && full.retryAfterSec !== undefined)
          (req as WithNode).runtime?.node?.res.setHeader('Retry-After', String(full.retryAfterSec));
        return err.status_code === 413 ? await tooLarge(req) : undefined;
      }
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

  /**
   * Checks the signed URL (an authentic upload URL; past its expiry only for an upload it started,
   * which the rules decide); false when refused (answered).
   */
  function admit(req: IncomingMessage, res: ServerResponse): boolean {
    try {
      const claims = verifier.verifySignedTarget(req.url ?? '/', { acceptExpired: true });
      // An upload URL takes uploads: a download (GET) of parts not yet stored is no use of it.
      if (claims.method !== 'PUT' || req.method === 'GET') {
        answer(res, 403, `This URL does not allow ${req.method} requests.`, corsOrigin(req));
        return false;
      }
      const urlExpiresMs = claims.expires * 1000;
      // Only an upload that exists outlives the URL: a creation needs the URL alive.
      if (req.method === 'POST' && now().getTime() > urlExpiresMs) throw expiredUrl();
      verified.set(req, { key: claims.key, url: handedOutUrl(new URL(req.url ?? '/', 'http://placeholder')), urlExpiresMs });
      res.setHeader('Upload-Expires', new Date(urlExpiresMs).toUTCString());
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

  /**
   * The parts become the file's blob (parts.moveToBlob) and the file is listed.
   * keepPart: HEAD still answers the finished upload's offset; the sweep removes the parts.
   */
  async function complete(upload: Upload, { keepPart = false, req }: { keepPart?: boolean; req?: Request } = {}): Promise<void> {
    const key = keyOf(upload.id);
    const file = await pendingFile(key);
    // Refused, the part stays whole: re-activated within the URL's life, the client's HEAD completes it.
    await activeAccount(file, req);
    // The plain PUT's claim: one of the two ways in wins; a PUT in flight makes this one 409.
    // Claimed before the bytes reach the blob key, so a file stored first is never overwritten.
    if (!(await repo.claimUpload(file._id, now()))) throw refusal(409, USED_URL_MESSAGE);
    try {
      const { size } = await parts.moveToBlob(upload, key);
      const contentType = await sniffContentType(blobs, key);
      if (!(await repo.completeUpload(file._id, size, contentType))) {
        // Deleted meanwhile (DELETE /file, its directory swept): the blob is no one's.
        await blobs.delete(key);
        throw refusal(409, USED_URL_MESSAGE);
      }
    } catch (err) {
      await repo.releaseUpload(file._id);
      // Every byte is in: a slow failed store (an S3 copy) must not leave it expired; the next
      // HEAD completes it.
      await repo.renewUpload(file._id, new Date(now().getTime() + UPLOAD_IDLE_MS));
      throw err;
    }
    if (!keepPart) await parts.remove(upload.id);
  }

  /**
   * HEAD on a URL whose file is stored, or being stored: the upload is complete (tus: offset equal
   * to length), or a moment away (423, which tus clients retry). A client whose last PATCH lost its
   * answer learns it is done, as from any tus server, instead of a 409.
   */
  async function answeredStored(req: IncomingMessage, res: ServerResponse): Promise<boolean> {
    const file = await repo.fileByBlobKey(verified.get(req)!.key);
    if (!file || file.state === 'pending') return false;
    // A directory gone, or a claim a crash left: the usual answers (404, 409).
    if (!(await repo.liveDirectory(file.accountId, file.dirId, now()))) return false;
    const storing = file.state === 'uploading';
    if (storing && !(file.claimedAt && now().getTime() - file.claimedAt.getTime() < STORING_FRESH_MS)) return false;
    const origin = corsOrigin(req);
    const cors = origin
      ? {
          'Access-Control-Allow-Origin': origin,
          'Access-Control-Expose-Headers': 'Upload-Offset, Upload-Length, Retry-After',
          Vary: 'Origin',
        }
      : {};
    if (storing) {
      res.writeHead(423, { 'Tus-Resumable': '1.0.0', 'Retry-After': '1', 'Cache-Control': 'no-store', ...cors }).end();
      return true;
    }
    const size = String(file.size);
    res
      .writeHead(200, { 'Tus-Resumable': '1.0.0', 'Upload-Offset': size, 'Upload-Length': size, 'Cache-Control': 'no-store', ...cors })
      .end();
    return true;
  }

  return {
    /** Answers a tus request on a signed upload URL (see isTusRequest). */
    handle(req: IncomingMessage, res: ServerResponse): void {
      if (req.method !== 'OPTIONS' && !admit(req, res)) return;
      const failed = (err: unknown) => {
        onError?.(err);
        if (!res.headersSent) answer(res, 500, 'The storage service failed to handle this request.');
        else res.destroy();
      };
      void (req.method === 'HEAD' ? answeredStored(req, res) : Promise.resolve(false)).then(
        (answered) => (answered ? undefined : server.handle(req, res).catch(failed)),
        failed,
      );
    },

    /**
     * Removes the parts of uploads that can no longer complete: URL expired (the registration's
     * uploadExpiresAt), file deleted or its directory gone, or completed another way.
     */
    async sweep(): Promise<number> {
      let removed = 0;
      for await (const id of parts.list()) {
        if (writing.has(id)) continue; // a request of this process is writing it (renewed meanwhile)
        const key = parts.keyOf(id);
        const file = key === undefined ? null : await repo.fileByBlobKey(key);
        const live =
          file &&
          file.state !== 'uploaded' &&
          file.uploadExpiresAt > now() &&
          (await repo.liveDirectory(file.accountId, file.dirId, now()));
        if (live) continue;
        await parts.remove(id);
        removed++;
      }
      return removed;
    },
  };
}

export type TusUploads = ReturnType<typeof createTusUploads>;
