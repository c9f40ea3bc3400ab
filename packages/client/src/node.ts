// Node-only helpers: upload a local file or stream with progress (register, then a streamed PUT
// with its Content-Length, as S3's signed URLs require; a local file goes by tus, resumable, where
// the URL speaks it), and download to a file.
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, stat, writeFile } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { basename, dirname, resolve as resolvePath } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import * as tus from 'tus-js-client';
import { Upload, type PreviousUpload, type UrlStorage } from 'tus-js-client';
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
   * entry is added when an upload is created and removed when it completes.
   */
  urlStorage: UrlStorage;
  /** Keeps apart the uploads of different services and accounts (e.g. the API URL and a hash of the key). */
  scope: string;
}

/** What a resumable upload tells its caller besides the bytes moving. */
export type ResumeEvent =
  /** The upload is on its way by tus and can be continued by a later process until `expiresAt` (ISO). */
  | { kind: 'resumable'; filePath: string; expiresAt: string }
  /** An unfinished upload of this file was found: it continues from `offset`, the bytes the service has. */
  | { kind: 'resumed'; offset: number; total: number; filePath: string }
  /** An unfinished upload was found but cannot continue (its URL expired or was refused): a new one starts from byte 0. */
  | { kind: 'restarted'; reason: string; filePath: string };

export interface FileUploadOptions extends UploadOptions {
  /** Make the upload resumable by a later process (tus, where the upload URL speaks it). */
  resume?: ResumeOptions;
  onResume?: (event: ResumeEvent) => void;
  /** Bytes per tus PATCH (default: the whole rest of the file in one request). */
  chunkSize?: number;
}

/** Left on an upload URL for a resumed upload to be worth trying (the URL lives 5 minutes). */
const RESUME_MARGIN_MS = 10_000;

/**
 * A URL storage in a JSON file (tus-js-client's FileUrlStorage, which locks the file while it
 * writes). Best effort: a file that cannot be read or written (damaged, a read-only home) costs
 * the resume, never the upload (tus-js-client would otherwise stop an upload whose URL it cannot
 * record), so its errors are swallowed: nothing found, nothing kept.
 */
export async function fileUrlStorage(path: string): Promise<UrlStorage> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 }).catch(() => undefined);
  // FileUrlStorage is exported by the Node entry but missing from tus-js-client's type definitions.
  const { FileUrlStorage } = tus as unknown as { FileUrlStorage: new (path: string) => UrlStorage };
  const file = new FileUrlStorage(path);
  const damaged = () => writeFile(path, '{}', { mode: 0o600 }).catch(() => undefined);
  return {
    findAllUploads: () => file.findAllUploads().catch(async () => (await damaged(), [])),
    findUploadsByFingerprint: (fingerprint) => file.findUploadsByFingerprint(fingerprint).catch(async () => (await damaged(), [])),
    removeUpload: (key) => file.removeUpload(key).catch(() => undefined),
    addUpload: (fingerprint, upload) => file.addUpload(fingerprint, upload).catch(() => ''),
  };
}

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
  expires_at: string;
}

function registeredFrom(kept: Kept, url: string): RegisteredFile {
  return {
    ok: true,
    file: { dir_id: kept.dir_id, file_name: kept.filename, file_path: kept.file_path, added_on: kept.added_on },
    upload: {
      url,
      method: 'PUT',
      headers: {},
      expiresInSeconds: Math.max(0, Math.round((Date.parse(kept.expires_at) - Date.now()) / 1000)),
    },
  } as RegisteredFile;
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
  return new Promise<{ resumedAt: number | undefined }>((resolve, reject) => {
    let resumedAt: number | undefined;
    let headSeen = false;
    // A file stream with its path: tus-js-client reads it as a file (slices at any offset).
    const upload = new Upload(createReadStream(path) as unknown as Buffer, {
      // The signed URL is the upload and its own creation endpoint (decision 0012): a new upload
      // is created there (POST); a previous one continues from its offset (HEAD, then PATCH).
      endpoint: url,
      ...(opts.chunkSize ? { chunkSize: opts.chunkSize } : {}),
      metadata: { ...kept },
      fingerprint: async () => fingerprint,
      urlStorage: opts.resume!.urlStorage,
      storeFingerprintForResuming: true,
      removeFingerprintOnSuccess: true,
      retryDelays: [0, 1000, 3000, 5000],
      // tus-js-client retries a 409 (an offset conflict in tus); the service also answers 409 when
      // the name was used (the upload completed): retried only after a PATCH, a conflict there.
      onShouldRetry: (err) => {
        const status = err.originalResponse?.getStatus() ?? 0;
        if (status === 409) return err.originalRequest?.getMethod() === 'PATCH';
        return status === 423 || status < 400 || status >= 500;
      },
      onAfterResponse: (req, res) => {
        // The first HEAD, when it finds the upload there, gives the offset it continues from (a
        // later one is tus-js-client's own retry within this run).
        if (!previous || req.getMethod() !== 'HEAD' || headSeen) return;
        headSeen = true;
        if (res.getStatus() === 200) {
          resumedAt = Number(res.getHeader('Upload-Offset'));
          opts.onResume?.({ kind: 'resumed', offset: resumedAt, total, filePath: kept.file_path });
        }
      },
      onProgress: (sent) => opts.onProgress?.({ loaded: sent, total }),
      onSuccess: () => resolve({ resumedAt }),
      onError: (err) => {
        const status = (err as { originalResponse?: { getStatus(): number; getBody(): string } | null }).originalResponse;
        reject(new MediaApiError(status?.getStatus() ?? 0, `The upload was refused: ${status?.getBody()?.slice(0, 500) ?? err.message}`));
      },
    });
    // Resumed from its URL storage entry, the entry goes when the upload completes.
    if (previous) upload.resumeFromPreviousUpload(previous);
    opts.onResume?.({ kind: 'resumable', filePath: kept.file_path, expiresAt: kept.expires_at });
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

/** The unfinished upload of this file recorded by an earlier run, if its URL still has time. */
async function previousUpload(storage: UrlStorage, fingerprint: string, fileName: string, dirId: string | undefined) {
  const found = await storage.findUploadsByFingerprint(fingerprint);
  let live: PreviousUpload | undefined;
  let expired: PreviousUpload | undefined;
  for (const p of found) {
    const m = p.metadata as Partial<Kept>;
    if (!p.uploadUrl || m.filename !== fileName || (dirId !== undefined && m.dir_id !== dirId)) continue;
    if (Date.parse(m.expires_at ?? '') - RESUME_MARGIN_MS > Date.now()) live ??= p;
    else expired ??= p;
  }
  // Entries that can no longer continue are dropped (their parts are swept by the service).
  for (const p of found)
    if (p !== live && (p === expired || Date.parse((p.metadata as Partial<Kept>).expires_at ?? '') < Date.now()))
      await storage.removeUpload(p.urlStorageKey).catch(() => undefined);
  return { live, expired };
}

/**
 * Registers a local file and uploads it: the registered file (its file_path is what tasks name).
 * With `resume`, the upload goes by tus where the URL speaks it (the local-disk listener), and an
 * upload of the same file (path, size, mtime) left unfinished by an earlier process continues
 * from the offset the service has, as long as its URL is valid (5 minutes after POST /file).
 * Elsewhere (an S3 presigned URL), and without `resume`, it is the plain PUT.
 */
export async function uploadFile(client: MediaClient, path: string, opts: FileUploadOptions = {}): Promise<RegisteredFile> {
  const { size, mtimeMs } = await stat(path);
  const fileName = opts.fileName ?? basename(path);
  if (!opts.resume) return uploadStream(client, createReadStream(path), size, { ...opts, fileName });
  const { urlStorage, scope } = opts.resume;
  const fingerprint = ['media', scope, resolvePath(path), size, Math.trunc(mtimeMs)].join('::');

  const { live, expired } = await previousUpload(urlStorage, fingerprint, fileName, opts.dirId);
  if (live) {
    const kept = live.metadata as unknown as Kept;
    try {
      await tusUpload(path, live.uploadUrl!, fingerprint, kept, opts, size, live);
      return registeredFrom(kept, live.uploadUrl!);
    } catch (err) {
      // Refused (expired in the meantime, or the name was used): start over on a new URL.
      if (!(err instanceof MediaApiError) || err.status === 0) throw err;
      await urlStorage.removeUpload(live.urlStorageKey).catch(() => undefined);
      if (await uploadedWhole(client, kept, size)) {
        opts.onResume?.({ kind: 'resumed', offset: size, total: size, filePath: kept.file_path });
        return registeredFrom(kept, live.uploadUrl!);
      }
      opts.onResume?.({ kind: 'restarted', reason: err.message, filePath: kept.file_path });
    }
  } else if (expired) {
    const kept = expired.metadata as unknown as Kept;
    if (await uploadedWhole(client, kept, size)) {
      opts.onResume?.({ kind: 'resumed', offset: size, total: size, filePath: kept.file_path });
      return registeredFrom(kept, expired.uploadUrl!);
    }
    opts.onResume?.({ kind: 'restarted', reason: `its upload URL expired at ${kept.expires_at}`, filePath: kept.file_path });
  }

  const registered = await client.register(fileName, opts.dirId);
  const { url, headers, expiresInSeconds } = registered.upload!;
  if (!(await speaksTus(url!))) {
    await putStream(url!, headers ?? {}, createReadStream(path), size, opts.onProgress);
    return registered;
  }
  const kept: Kept = {
    filename: registered.file.file_name,
    dir_id: registered.file.dir_id,
    file_path: registered.file.file_path,
    added_on: registered.file.added_on,
    expires_at: new Date(Date.now() + (expiresInSeconds ?? 300) * 1000).toISOString(),
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
