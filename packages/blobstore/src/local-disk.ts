// Local-disk backend: one file per blob under `root`, written atomically (temp file + rename),
// with HMAC-signed URLs served by createSignedBlobHandler on the Storage service's listener.
import { randomUUID } from 'node:crypto';
import { link, lstat, mkdir, open, readdir, rename, rm, stat, unlink, type FileHandle } from 'node:fs/promises';
import { dirname, join, resolve, sep } from 'node:path';
import type { Readable } from 'node:stream';
import { ByteCounter } from './byte-counter.js';
import { DurableFileWriter } from './durable-file.js';
import { pipelineToFile } from './file-writer.js';
import { encodeKey } from './disk-names.js';
import { isMissing, pruneEmptyDirs, walkBlobs } from './disk-walk.js';
import { BlobRangeError } from './errors.js';
import { assertValidKey, assertValidPrefix } from './keys.js';
import { LocalSourceRefusedError, type LocalSource } from './local-source.js';
import {
  BlobNotFoundError,
  BlobTooLargeError,
  type BlobHead,
  type BlobStore,
  type SignDownloadOptions,
  type SignUploadOptions,
  type SignedUrl,
} from './types.js';
import { createUrlSigner, type SignedClaims, type VerifyOptions } from './url-signing.js';

export interface LocalDiskBlobStoreOptions {
  /** Directory holding the blobs (created when missing). */
  root: string;
  /** Base URL clients reach the Storage service's signed-URL handler at, e.g. http://host:port. */
  publicBaseUrl: string;
  /** HMAC key for signed URLs; every instance serving the same root needs the same one. */
  signingSecret: string;
  /** Clock in milliseconds, for tests of expiry. */
  now?: () => number;
}

export interface LocalDiskBlobStore extends BlobStore {
  readonly kind: 'local';
  readonly root: string;
  localPath(key: string): string;
  /** Removes part-written files idle for `idleMs` (a crash's leftovers); returns how many. */
  sweepTemp(idleMs: number): Promise<number>;
  /** Takes in a checked file of this host (openLocalSource): hard link, or copy across filesystems. */
  putFile(key: string, source: LocalSource, options?: { maxBytes?: number }): Promise<{ size: number }>;
  /** Verifies `req.url` of a signed-URL request; throws BlobHttpError (403/404) otherwise. */
  verifySignedTarget(target: string, opts?: VerifyOptions): SignedClaims;
}

const TEMP_DIR = '.tmp'; // starts with ".", which no encoded key segment does

export function createLocalDiskBlobStore(options: LocalDiskBlobStoreOptions): LocalDiskBlobStore {
  const root = resolve(options.root);
  const now = options.now ?? Date.now;
  if (!options.signingSecret) throw new Error('The local blob store needs a non-empty signing secret.');
  const signer = createUrlSigner({ publicBaseUrl: options.publicBaseUrl, secret: options.signingSecret, now });

  function localPath(key: string): string {
    assertValidKey(key);
    const path = join(root, ...encodeKey(key));
    // Encoded names never contain "/" or "..", so this cannot fail; it stays as a last guard.
    if (!path.startsWith(root + sep)) throw new Error(`blob key escapes the store root: ${key}`);
    return path;
  }

  async function openBlob(key: string): Promise<{ handle: FileHandle; size: number }> {
    let handle: FileHandle;
    try {
      handle = await open(localPath(key), 'r');
    } catch (err) {
      if (isMissing(err)) throw new BlobNotFoundError(key);
      throw err;
    }
    const info = await handle.stat();
    if (!info.isFile()) {
      await handle.close();
      throw new BlobNotFoundError(key); // a "directory" key, i.e. a prefix of other keys
    }
    return { handle, size: info.size };
  }

  async function moveIntoPlace(temp: string, target: string): Promise<void> {
    // deletePrefix may prune the freshly made directory in between: try again then.
    for (let attempt = 0; ; attempt++) {
      await mkdir(dirname(target), { recursive: true });
      try {
        await rename(temp, target);
        return;
      } catch (err) {
        if (attempt >= 3 || (err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      }
    }
  }

  async function newTemp(): Promise<string> {
    const tempDir = join(root, TEMP_DIR);
    await mkdir(tempDir, { recursive: true });
    return join(tempDir, randomUUID());
  }

  async function put(key: string, body: Readable, opts?: { maxBytes?: number; freeWritten?: boolean }): Promise<{ size: number }> {
    const target = localPath(key);
    const temp = await newTemp();
    const counter = new ByteCounter(opts?.maxBytes);
    try {
      // On disk before the rename, so a crash never exposes a short file under the key.
      await pipelineToFile([body, counter], new DurableFileWriter(temp, { freeWritten: opts?.freeWritten }));
      await moveIntoPlace(temp, target);
    } catch (err) {
      await rm(temp, { force: true });
      throw err;
    }
    return { size: counter.bytes };
  }

  return {
    kind: 'local',
    root,
    localPath,

    put,

    /**
     * Removes part-written files that no upload is writing any more (left by a crash: a finished
     * or failed put removes its own), those untouched for `idleMs`; returns how many.
     */
    async sweepTemp(idleMs: number): Promise<number> {
      const dir = join(root, TEMP_DIR);
      let names: string[];
      try {
        names = await readdir(dir);
      } catch (err) {
        if (isMissing(err)) return 0;
        throw err;
      }
      let removed = 0;
      for (const name of names) {
        const path = join(dir, name);
        const info = await stat(path).catch(() => null);
        if (info && now() - info.mtimeMs > idleMs) {
          await rm(path, { force: true });
          removed += 1;
        }
      }
      return removed;
    },

    /**
     * Takes in a checked file of this host (openLocalSource) as blob `key`, with put's guarantees
     * (size limit; fsynced, then renamed into place): a hard link when the file is on the store's
     * filesystem (no bytes copied), else a copy read from the opened file. The source name stays
     * (its owner deletes it), so a retried call finds it again.
     */
    async putFile(key: string, source: LocalSource, opts?: { maxBytes?: number }): Promise<{ size: number }> {
      const target = localPath(key);
      const changed = () => new LocalSourceRefusedError(source.path, 'the file changed while it was taken in');
      if (opts?.maxBytes !== undefined && source.size > opts.maxBytes) throw new BlobTooLargeError(source.size, opts.maxBytes);
      const temp = await newTemp();
      try {
        await link(source.path, temp);
      } catch {
        // Another filesystem (EXDEV), or one without hard links: copy the file that was checked.
        const { size } = await put(key, source.handle.createReadStream({ start: 0, autoClose: false }), opts);
        if (size !== source.size) {
          await unlink(target).catch(() => undefined);
          throw changed();
        }
        return { size };
      }
      try {
        // The name may have been swapped since it was checked: the link must be the opened file.
        const linked = await lstat(temp);
        if (!linked.isFile() || linked.ino !== source.ino || linked.dev !== source.dev || linked.size !== source.size) {
          throw changed();
        }
        await source.handle.sync(); // put's flush: the data is on disk before the name appears
        await moveIntoPlace(temp, target);
      } catch (err) {
        await rm(temp, { force: true });
        throw err;
      }
      return { size: source.size };
    },

    async get(key: string, range?: { start: number; end?: number }): Promise<Readable> {
      const { handle, size } = await openBlob(key);
      if (!range) return handle.createReadStream();
      const end = Math.min(range.end ?? size - 1, size - 1);
      if (!Number.isSafeInteger(range.start) || range.start < 0 || range.start >= size || end < range.start) {
        await handle.close();
        throw new BlobRangeError(key, range.start, size);
      }
      // Reads from the open descriptor: a concurrent replace or delete does not tear the stream.
      return handle.createReadStream({ start: range.start, end });
    },

    async head(key: string): Promise<BlobHead | null> {
      try {
        const info = await stat(localPath(key));
        return info.isFile() ? { size: info.size } : null;
      } catch (err) {
        if (isMissing(err)) return null;
        throw err;
      }
    },

    async delete(key: string): Promise<void> {
      try {
        await unlink(localPath(key));
      } catch (err) {
        // Absent, or a "directory" key that is no blob: either way nothing to delete.
        if (!isMissing(err) && (err as NodeJS.ErrnoException).code !== 'EISDIR') throw err;
      }
    },

    async deletePrefix(prefix: string): Promise<number> {
      assertValidPrefix(prefix);
      // Walk only the directory of the complete segments; the partial last one filters.
      const slash = prefix.lastIndexOf('/');
      const dirKey = prefix.slice(0, slash + 1);
      const dir = slash >= 0 ? localPath(prefix.slice(0, slash)) : root;
      let count = 0;
      for await (const blob of walkBlobs(dir, dirKey)) {
        if (!blob.key.startsWith(prefix)) continue;
        await rm(blob.path, { force: true });
        count++;
      }
      await pruneEmptyDirs(dir, dir === root);
      return count;
    },

    signUpload: async (key: string, opts: SignUploadOptions): Promise<SignedUrl> => signer.signUpload(key, opts),
    signDownload: async (key: string, opts: SignDownloadOptions): Promise<SignedUrl> => signer.signDownload(key, opts),
    verifySignedTarget: (target: string, opts?: VerifyOptions): SignedClaims => signer.verifySignedTarget(target, opts),
  };
}
