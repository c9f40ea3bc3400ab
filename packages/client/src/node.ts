// Node-only helpers: upload a local file or stream with progress (register, then a streamed PUT
// with its Content-Length, as S3's signed URLs require; a local file goes by tus, resumable, where
// the URL speaks it), and download to a file.
import { createReadStream, createWriteStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { basename, resolve as resolvePath } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { type DetailedError, Upload, type PreviousUpload, type UrlStorage } from 'tus-js-client';
import type { MediaClient, RegisteredFile } from './client.js';
import { MediaApiError } from './errors.js';

export interface Progress {
  loaded: number;
  /** Bytes in all, when known. */
  total?: number;
}

export type OnProgress = (p: Progress) => void;

/** Counts bytes as they pass. */
function counter(total: number | undefined, onProgress?: OnProgress): Transform {
  let loaded = 0;
  return new Transform({
    transform(chunk: Buffer, _enc, done) {
      loaded += chunk.length;
      onProgress?.({ loaded, total });
      done(null, chunk);
    },
  });
}

/** PUTs `size` bytes from `source` to a signed URL; resolves when the store has answered 2xx. */
export function putStream(url: string, headers: Record<string, string>, source: Readable, size: number, onProgress?: OnProgress) {
  return new Promise<void>((resolve, reject) => {
    const target = new URL(url);
    const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = send(target, { method: 'PUT', headers: { ...headers, 'content-length': String(size) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const status = res.statusCode ?? 0;
        if (status >= 200 && status < 300) resolve();
        else reject(new MediaApiError(status, `The upload was refused: ${Buffer.concat(chunks).toString('utf8').slice(0, 500)}`));
      });
      res.on('error', reject);
    });
    req.on('error', (err) => reject(new MediaApiError(0, `The upload failed: ${err.message}`)));
    pipeline(source, counter(size, onProgress), req).catch(reject);
  });
}

export interface UploadOptions {
  /** The name in the directory (default: the file's own name). */
  fileName?: string;
  dirId?: string;
  onProgress?: OnProgress;
}

/** Where resumable uploads are remembered, so that a later process continues them. */
export interface ResumeOptions {
  /**
   * tus-js-client's URL storage: `fileUrlStorage(path)` keeps the uploads in a JSON file. An
   * entry is added when an upload is created and removed when it completes or can no longer
   * continue; entries older than 7 days are dropped.
   */
  urlStorage: UrlStorage;
  /** Keeps apart the uploads of different services and accounts (e.g. the API URL and a hash of the key). */
  scope: string;
}

/** What a resumable upload tells its caller besides the bytes moving. */
export type ResumeEvent =
  /**
   * The upload is recorded and can be continued by a later process until `expiresAt` (ISO, the
   * service's `Upload-Expires`); said again when an answer moves the expiry (renewed by activity).
   */
  | { kind: 'resumable'; filePath: string; expiresAt: string }
  /** An unfinished upload of this file was found: it continues from `offset`, the bytes the service has. */
  | { kind: 'resumed'; offset: number; total: number; filePath: string }
  /** An unfinished upload was found but cannot continue (expired, gone, or its name taken): a new one starts from byte 0. */
  | { kind: 'restarted'; reason: string; filePath: string };

export interface FileUploadOptions extends UploadOptions {
  /** Make the upload resumable by a later process (tus, where the upload URL speaks it). */
  resume?: ResumeOptions;
  onResume?: (event: ResumeEvent) => void;
  /** Bytes per tus PATCH (default: the whole rest of the file in one request). */
  chunkSize?: number;
}

export { fileUrlStorage, RECORD_MAX_AGE_MS } from './url-storage.js';

/**
 * Whether an upload URL speaks tus: it answers `OPTIONS` with `Tus-Resumable` (the tus way to
 * discover a server). The local-disk signed URL does; an S3 presigned URL does not (S3 answers an
 * `OPTIONS` without CORS headers with an error and no such header), so it gets the plain PUT.
 */
export async function speaksTus(url: string): Promise<boolean> {
  try {
    const res = await fetch(url, { method: 'OPTIONS', signal: AbortSignal.timeout(10_000) });
    await res.body?.cancel();
    return res.ok && res.headers.has('tus-resumable');
  } catch {
    return false;
  }
}

/** What is kept with a resumable upload (tus metadata, so it is in the URL storage's entry). */
interface Kept {
  filename: string;
  dir_id: string;
  file_path: string;
  added_on: string;
}

function registeredFrom(kept: Kept, url: string, expiresAt: string | undefined): RegisteredFile {
  const left = expiresAt ? Math.max(0, Math.round((Date.parse(expiresAt) - Date.now()) / 1000)) : 0;
  return {
    ok: true,
    file: { dir_id: kept.dir_id, file_name: kept.filename, file_path: kept.file_path, added_on: kept.added_on },
    upload: { url, method: 'PUT', headers: {}, expiresInSeconds: left },
  } as RegisteredFile;
}

/** Longest wait a Retry-After may ask for between tus-js-client's tries. */
const MAX_RETRY_AFTER_MS = 60_000;

/** A Retry-After header (seconds or an HTTP date) in milliseconds, if there is one. */
function retryAfterMs(value: string | undefined | null): number | undefined {
  if (!value) return undefined;
  const ms = /^\d+$/.test(value.trim()) ? Number(value) * 1000 : Date.parse(value) - Date.now();
  return Number.isFinite(ms) ? Math.min(Math.max(ms, 0), MAX_RETRY_AFTER_MS) : undefined;
}

/**
 * Whether a refused upload can no longer continue, so its record goes and a new one starts: its
 * URL expired or is not ours (403 with those words), the upload is gone (404, 410), or the name
 * is taken (409). Anything else (5xx, 423, 429, an account not active) leaves it resumable later.
 */
function cannotContinue(err: unknown): boolean {
  if (!(err instanceof MediaApiError)) return false;
  if ([404, 409, 410].includes(err.status)) return true;
  return err.status === 403 && /This URL has expired\.|The signature of this URL is not valid\./.test(err.message);
}

/**
 * Why the service refuses requests on an upload URL: the body of its 403 to a PATCH of no bytes
 * (the URL is checked before anything else, so an expired or foreign URL says so), else ''.
 */
async function refusalOf(url: string): Promise<string> {
  try {
    const res = await fetch(url, {
      method: 'PATCH',
      headers: { 'Tus-Resumable': '1.0.0', 'Upload-Offset': '0', 'Content-Type': 'application/offset+octet-stream' },
      body: new Uint8Array(0),
      signal: AbortSignal.timeout(10_000),
    });
    const text = await res.text();
    return res.status === 403 ? text : '';
  } catch {
    return '';
  }
}

/** Runs one tus upload of a local file to its end (tus-js-client retries a dropped request itself). */
function tusUpload(
  path: string,
  url: string,
  fingerprint: string,
  kept: Kept,
  opts: FileUploadOptions,
  total: number,
  previous?: PreviousUpload,
) {
  const storage = opts.resume!.urlStorage;
  return new Promise<{ resumedAt: number | undefined; expiresAt: string | undefined }>((resolve, reject) => {
    let resumedAt: number | undefined;
    let headSeen = false;
    let expiresAt: string | undefined;
    /** The record's key once it is in the storage (then a later process can continue the upload). */
    let recorded = previous?.urlStorageKey;
    let announced: string | undefined;
    const announce = () => {
      if (!recorded || !expiresAt || announced === expiresAt) return;
      announced = expiresAt;
      opts.onResume?.({ kind: 'resumable', filePath: kept.file_path, expiresAt });
    };
    // The record is ours to remove: tus-js-client would drop it on any 4xx to its HEAD (an
    // account suspended for a while, a 429) and on success; we drop it only when the upload is
    // done or can no longer continue (uploadFile decides).
    const urlStorage: UrlStorage = {
      findAllUploads: () => storage.findAllUploads(),
      findUploadsByFingerprint: (f) => storage.findUploadsByFingerprint(f),
      removeUpload: async () => undefined,
      addUpload: async (f, upload) => {
        const key = await storage.addUpload(f, upload);
        if (key) recorded = key;
        announce();
        return key;
      },
    };
    // tus-js-client reads the delay of a retry from this array after asking onShouldRetry: a
    // Retry-After of the answer goes there (our own array, one per upload).
    const retryDelays = [0, 1000, 3000, 5000];
    // A file stream with its path: tus-js-client reads it as a file (slices at any offset).
    const upload = new Upload(createReadStream(path) as unknown as Buffer, {
      // The signed URL is the upload and its own creation endpoint (decision 0012): a new upload
      // is created there (POST); a previous one continues from its offset (HEAD, then PATCH), and
      // without an endpoint a refused HEAD is an error for uploadFile to judge, not a new POST.
      ...(previous ? {} : { endpoint: url }),
      ...(opts.chunkSize ? { chunkSize: opts.chunkSize } : {}),
      metadata: { ...kept },
      fingerprint: async () => fingerprint,
      urlStorage,
      storeFingerprintForResuming: true,
      removeFingerprintOnSuccess: false,
      retryDelays,
      // tus-js-client retries a 409 (an offset conflict in tus); the service also answers 409 when
      // the name was used (the upload completed): retried only after a PATCH, a conflict there.
      onShouldRetry: (err, attempt) => {
        const res = err.originalResponse;
        const status = res?.getStatus() ?? 0;
        const retry =
          status === 409 ? err.originalRequest?.getMethod() === 'PATCH' : status === 423 || status === 429 || status < 400 || status >= 500;
        const wait = retryAfterMs(res?.getHeader('Retry-After'));
        if (retry && wait !== undefined && attempt < retryDelays.length) retryDelays[attempt] = Math.max(retryDelays[attempt]!, wait);
        return retry;
      },
      onAfterResponse: (req, res) => {
        // Every tus answer says until when the upload can continue (renewed by activity).
        const expires = Date.parse(res.getHeader('Upload-Expires') ?? '');
        if (Number.isFinite(expires)) expiresAt = new Date(expires).toISOString();
        // The first HEAD, when it finds the upload there, gives the offset it continues from (a
        // later one is tus-js-client's own retry within this run).
        if (previous && req.getMethod() === 'HEAD' && !headSeen && res.getStatus() === 200) {
          headSeen = true;
          resumedAt = Number(res.getHeader('Upload-Offset'));
          opts.onResume?.({ kind: 'resumed', offset: resumedAt, total, filePath: kept.file_path });
        }
        announce();
      },
      onProgress: (sent) => opts.onProgress?.({ loaded: sent, total }),
      onSuccess: () => {
        const done = () => resolve({ resumedAt, expiresAt });
        if (recorded) storage.removeUpload(recorded).then(done, done);
        else done();
      },
      onError: (err) => {
        const res = (err as { originalResponse?: { getStatus(): number; getBody(): string } | null }).originalResponse;
        const status = res?.getStatus() ?? 0;
        const body = res?.getBody() || '';
        // An answer to HEAD has no body: a 403 there says why only to a request that has one.
        const why =
          status === 403 && !body && (err as DetailedError).originalRequest?.getMethod() === 'HEAD'
            ? refusalOf(upload.url ?? previous?.uploadUrl ?? url)
            : Promise.resolve(body);
        void why.then((text) =>
          reject(
            new MediaApiError(
              status,
              res ? `The upload was refused: ${(text || body).slice(0, 500)}` : `The upload failed: ${err.message}`,
            ),
          ),
        );
      },
    });
    if (previous) upload.resumeFromPreviousUpload(previous);
    upload.start();
  });
}

/**
 * Whether the upload of a record completed after all (the process stopped between the last byte
 * and forgetting the record): the service lists the file at this size.
 */
async function uploadedWhole(client: MediaClient, kept: Kept, size: number): Promise<boolean> {
  try {
    const { file_info } = await client.fileInfo(kept.dir_id, kept.filename);
    return file_info.file_size === size;
  } catch {
    return false;
  }
}

/**
 * The fingerprint of a local file's upload: the service and account (scope), the path, size,
 * mtime, inode and ctime. A file rewritten in place at the same size and mtime (cp -p, rsync -t)
 * has another ctime (no user tool sets it), or another inode (replaced by a rename).
 */
async function fingerprintOf(path: string, scope: string) {
  const { size, mtimeMs, ctimeMs, ino } = await stat(path);
  return { size, fingerprint: ['media', scope, resolvePath(path), size, Math.trunc(mtimeMs), ino, Math.trunc(ctimeMs)].join('::') };
}

/**
 * The unfinished upload of this file recorded by an earlier run (the newest), whatever the local
 * clock says: the service answers whether it can still continue.
 */
async function previousUpload(storage: UrlStorage, fingerprint: string, fileName: string, dirId: string | undefined) {
  const found = (await storage.findUploadsByFingerprint(fingerprint)).filter((p) => {
    const m = p.metadata as Partial<Kept>;
    return p.uploadUrl && m.filename === fileName && (dirId === undefined || m.dir_id === dirId);
  });
  const created = (p: PreviousUpload) => Date.parse(p.creationTime) || 0;
  return found.sort((a, b) => created(b) - created(a))[0];
}

/**
 * Where an earlier run left an unfinished upload of this local file (its directory and
 * file_path), if it did: a command uploading several files continues in that directory.
 */
export async function recordedUpload(
  path: string,
  resume: ResumeOptions,
  fileName = basename(path),
): Promise<{ dirId: string; filePath: string } | undefined> {
  try {
    const { fingerprint } = await fingerprintOf(path, resume.scope);
    const found = await previousUpload(resume.urlStorage, fingerprint, fileName, undefined);
    const m = found?.metadata as Partial<Kept> | undefined;
    return m?.dir_id && m.file_path ? { dirId: m.dir_id, filePath: m.file_path } : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Forgets the unfinished uploads of this local file recorded by earlier runs (a command that
 * uploads it anew elsewhere abandons them: the service sweeps their parts when they expire).
 */
export async function forgetRecordedUploads(path: string, resume: ResumeOptions, fileName = basename(path)): Promise<void> {
  try {
    const { fingerprint } = await fingerprintOf(path, resume.scope);
    for (const p of await resume.urlStorage.findUploadsByFingerprint(fingerprint))
      if ((p.metadata as Partial<Kept>).filename === fileName) await resume.urlStorage.removeUpload(p.urlStorageKey);
  } catch {
    // best effort: a record left costs a HEAD the next time, never an upload
  }
}

/**
 * Registers a local file and uploads it: the registered file (its file_path is what tasks name).
 * With `resume`, the upload goes by tus where the URL speaks it (the local-disk listener), and an
 * upload of the same file (path, size, mtime, inode, ctime) left unfinished by an earlier process
 * continues from the offset the service has, as long as the service still takes it (it says so
 * to a HEAD). A refusal that ends the upload (expired, not found, the name taken) starts over on
 * a new registration; any other (5xx, 423, 429, an account not active) is thrown and the record
 * kept, so that a later call continues it. Elsewhere (an S3 presigned URL), and without `resume`,
 * it is the plain PUT.
 */
export async function uploadFile(client: MediaClient, path: string, opts: FileUploadOptions = {}): Promise<RegisteredFile> {
  const fileName = opts.fileName ?? basename(path);
  if (!opts.resume) {
    const { size } = await stat(path);
    return uploadStream(client, createReadStream(path), size, { ...opts, fileName });
  }
  const { urlStorage, scope } = opts.resume;
  const { size, fingerprint } = await fingerprintOf(path, scope);

  const live = await previousUpload(urlStorage, fingerprint, fileName, opts.dirId);
  if (live) {
    const kept = live.metadata as unknown as Kept;
    try {
      const { expiresAt } = await tusUpload(path, live.uploadUrl!, fingerprint, kept, opts, size, live);
      return registeredFrom(kept, live.uploadUrl!, expiresAt);
    } catch (err) {
      if (!cannotContinue(err)) throw err;
      await urlStorage.removeUpload(live.urlStorageKey).catch(() => undefined);
      if (await uploadedWhole(client, kept, size)) {
        opts.onResume?.({ kind: 'resumed', offset: size, total: size, filePath: kept.file_path });
        return registeredFrom(kept, live.uploadUrl!, undefined);
      }
      opts.onResume?.({ kind: 'restarted', reason: (err as Error).message, filePath: kept.file_path });
    }
  }

  const registered = await client.register(fileName, opts.dirId);
  const { url, headers } = registered.upload!;
  if (!(await speaksTus(url!))) {
    await putStream(url!, headers ?? {}, createReadStream(path), size, opts.onProgress);
    return registered;
  }
  const kept: Kept = {
    filename: registered.file.file_name,
    dir_id: registered.file.dir_id,
    file_path: registered.file.file_path,
    added_on: registered.file.added_on,
  };
  await tusUpload(path, url!, fingerprint, kept, opts, size);
  return registered;
}

/** Registers a name and uploads `size` bytes from a stream (the plain PUT: a stream cannot be resumed by another process). */
export async function uploadStream(
  client: MediaClient,
  source: Readable,
  size: number,
  opts: UploadOptions & { fileName: string },
): Promise<RegisteredFile> {
  const registered = await client.register(opts.fileName, opts.dirId);
  const { url, headers } = registered.upload!;
  await putStream(url!, headers ?? {}, source, size, opts.onProgress);
  return registered;
}

/** Downloads a URL (a result's download_url, or a signed download URL) to a file; the bytes written. */
export async function downloadTo(url: string, destination: string, onProgress?: OnProgress): Promise<number> {
  let res: Response;
  try {
    res = await fetch(url);
  } catch (err) {
    throw new MediaApiError(0, `The download failed: ${(err as Error).message}`);
  }
  if (!res.ok || !res.body) throw new MediaApiError(res.status, `The download was refused: ${(await res.text()).slice(0, 500)}`);
  const length = Number(res.headers.get('content-length'));
  let loaded = 0;
  const count = counter(Number.isFinite(length) && length > 0 ? length : undefined, (p) => {
    loaded = p.loaded;
    onProgress?.(p);
  });
  await pipeline(Readable.fromWeb(res.body as never), count, createWriteStream(destination));
  return loaded;
}
