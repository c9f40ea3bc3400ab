// Node-only helpers: upload a local file or stream with progress (register, then a streamed PUT
// with its Content-Length, as S3's signed URLs require), and download to a file.
import { createReadStream, createWriteStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { basename } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
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

/** Registers a local file and uploads it: the registered file (its file_path is what tasks name). */
export async function uploadFile(client: MediaClient, path: string, opts: UploadOptions = {}): Promise<RegisteredFile> {
  const { size } = await stat(path);
  return uploadStream(client, createReadStream(path), size, { ...opts, fileName: opts.fileName ?? basename(path) });
}

/** Registers a name and uploads `size` bytes from a stream. */
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
