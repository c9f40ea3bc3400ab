// The rules of directories and files: ownership, expiry (404 from the instant the ttl elapses),
// single-use uploads, and the 404s that never reveal whether something exists elsewhere.
import type { Readable } from 'node:stream';
import {
  BlobTooLargeError,
  LocalSourceRefusedError,
  openLocalSource,
  sniffContentType,
  type BlobStore,
  type LocalSource,
} from '@media/blobstore';
import { DomainError, Errors, isNoSpace, newId, type DiskReserve } from '@media/platform';
import type { DirectoryDoc, FileDoc, StorageRepository } from './ports.js';
import { assertDirId, assertFileName, isDirId, MAX_FILE_BYTES, ttlOrDefault, UPLOAD_URL_TTL_SEC } from './rules.js';

export interface StorageDeps {
  repo: StorageRepository;
  blobs: BlobStore;
  now?: () => Date;
  /**
   * The Jobs work directory on this host whose files may be stored in place (storeFile with a
   * `localPath` body). Unset: such requests are refused and callers stream the bytes instead.
   */
  localSourceDir?: string;
  /** The free-space reserve of the disk local blobs are written to (none with S3). */
  disk?: DiskReserve;
  /**
   * Uploads go straight to S3 (presigned PUTs, S3_UPLOADS=direct), and a PUT may be repeated
   * while its URL lives. False when the listener takes them and records each itself (on S3,
   * blobs of unclaimed registrations are still looked for: settle).
   */
  directUploads?: boolean;
}

/**
 * A stored file's bytes: streamed (StoreFile), or a finished file already on this host, inside
 * `localSourceDir`, whose size the caller states (StoreLocalFile).
 */
export type StoreBody = { stream: Readable } | { localPath: string; size: number };

/** The answer to a local store this Storage cannot or will not take: the caller streams instead. */
export const localStoreRefused = (reason: string) => new DomainError('state_conflict', `Local store refused: ${reason}`);

export const filePath = (f: { dirId: string; fileName: string }) => `${f.dirId}/${f.fileName}`;
/** A verdict is a few hundred bytes; this only stops a confused caller from bloating a record. */
const MAX_MEDIA_PROBE_CHARS = 64 * 1024;
/** Each lost insert means another store of the name completed; past this many, give up. */
const MAX_OVERWRITE_RACES = 32;
const blobKeyFor = (accountId: string, dirId: string, fileId: string) => `${accountId}/${dirId}/${fileId}`;
export const dirPrefix = (accountId: string, dirId: string) => `${accountId}/${dirId}/`;

export function createStorage({
  repo,
  blobs,
  now = () => new Date(),
  localSourceDir,
  disk,
  directUploads = blobs.kind === 's3',
}: StorageDeps) {
  const takesLocalFiles = localSourceDir !== undefined && blobs.putFile !== undefined;

  /** Writes the blob; BlobTooLargeError past maxBytes, localStoreRefused for an untrusted source. */
  async function putBlob(blobKey: string, body: StoreBody, maxBytes: number): Promise<{ size: number }> {
    let source: LocalSource | undefined;
    try {
      if ('stream' in body) return await blobs.put(blobKey, body.stream, { maxBytes });
      source = await openLocalSource(localSourceDir!, body.localPath);
      if (source.size !== body.size) throw localStoreRefused(`the file has ${source.size} bytes, not ${body.size}`);
      return await blobs.putFile!(blobKey, source, { maxBytes });
    } catch (err) {
      if (err instanceof LocalSourceRefusedError) throw localStoreRefused(err.reason);
      // A full disk is ours to fix, not the caller's: 503, and an async job waits for space.
      if (isNoSpace(err)) throw Errors.diskFull();
      throw err;
    } finally {
      await source?.handle.close();
    }
  }

  async function liveDirectory(accountId: string, dirId: string): Promise<DirectoryDoc> {
    const dir = isDirId(dirId) ? await repo.liveDirectory(accountId, dirId, now()) : null;
    if (!dir) throw Errors.directoryNotFound();
    return dir;
  }

  async function newDirectory(accountId: string, ttl?: number): Promise<DirectoryDoc> {
    const createdAt = now();
    const seconds = ttlOrDefault(ttl);
    const dir: DirectoryDoc = {
      _id: newId('dir_', 20),
      accountId,
      ttl: seconds,
      createdAt,
      expiresAt: new Date(createdAt.getTime() + seconds * 1000),
      sweepClaimedAt: null,
    };
    await repo.insertDirectory(dir);
    return dir;
  }

  /**
   * On S3 a presigned PUT goes straight to the bucket, so its registration learns of it here: the
   * blob exists -> record its size and sniffed type (an oversize blob is deleted). Also with
   * S3_UPLOADS=storage: URLs presigned before the switch from `direct` stay valid 5 minutes.
   * Uploads through the listener claim the registration (pending -> uploading) before any byte
   * reaches the blob key, so only an unclaimed (pending) file is looked at, and recorded only if
   * still unclaimed: a blob under an unclaimed registration is a presigned PUT's, or a listener
   * upload's whose recording failed after its bytes were all stored (then recorded as complete).
   */
  async function settle(file: FileDoc): Promise<FileDoc> {
    if (file.state !== 'pending' || blobs.kind !== 's3') return file;
    const head = await blobs.head(file.blobKey);
    if (!head) return file;
    if (head.size > MAX_FILE_BYTES) {
      await blobs.delete(file.blobKey);
      throw Errors.fileTooLarge(file.fileName, head.size);
    }
    const type = await sniffContentType(blobs, file.blobKey);
    const completed = await repo.settleUpload(file._id, head.size, type);
    if (completed) return completed;
    // Another request settled it first (two tasks sent at once on a file just uploaded), or a
    // listener upload claimed it: what is recorded, not this request's stale copy.
    const now = await repo.fileByName(file.dirId, file.fileName);
    return now?._id === file._id ? now : file;
  }

  /** An uploaded file in a live directory of the account, or the spec's 404. */
  async function uploadedFile(accountId: string, dirId: string, fileName: string): Promise<FileDoc> {
    await liveDirectory(accountId, dirId);
    const found = await repo.fileByName(dirId, fileName);
    const file = found ? await settle(found) : null;
    if (file?.state !== 'uploaded') throw Errors.fileNotFound();
    return file;
  }

  async function signFile(file: FileDoc, expiresInSeconds: number) {
    const url = await blobs.signDownload(file.blobKey, {
      expiresInSeconds,
      contentType: file.contentType ?? undefined,
      fileName: file.fileName,
    });
    return { file, url };
  }

  return {
    liveDirectory,
    uploadedFile,

    createDirectory: (accountId: string, ttl?: number) => newDirectory(accountId, ttl),

    listDirectories: (accountId: string) => repo.liveDirectories(accountId, now()),

    async listFiles(accountId: string, dirId: string): Promise<FileDoc[]> {
      await liveDirectory(accountId, dirId);
      if (blobs.kind === 's3') for (const f of await repo.pendingFiles(dirId)) await settle(f).catch(() => undefined);
      return repo.uploadedFiles(dirId);
    },

    /** POST /file: reserve the name and hand out a single-use upload URL. */
    async registerFile(accountId: string, fileName: string, dirId?: string) {
      assertFileName(fileName);
      if (dirId !== undefined) assertDirId(dirId);
      const given = dirId !== undefined ? await liveDirectory(accountId, dirId) : undefined;
      // No upload URL that would be refused for space (uploads check again as they start).
      await disk?.assertRoom();
      const dir = given ?? (await newDirectory(accountId));
      const existing = await repo.fileByName(dir._id, fileName);
      if (existing) {
        const settled = await settle(existing);
        // A registration whose upload URL lapsed unused gives its name back.
        if (settled.state === 'uploaded' || settled.uploadExpiresAt.getTime() > now().getTime()) throw Errors.fileExists();
        await repo.deleteFile(settled._id);
        await blobs.delete(settled.blobKey);
      }
      const fileId = newId('f_', 20);
      const addedOn = now();
      const file: FileDoc = {
        _id: fileId,
        accountId,
        dirId: dir._id,
        fileName,
        blobKey: blobKeyFor(accountId, dir._id, fileId),
        state: 'pending',
        addedOn,
        uploadExpiresAt: new Date(addedOn.getTime() + UPLOAD_URL_TTL_SEC * 1000),
        size: 0,
        contentType: null,
      };
      // Signed first: when it is refused (S3 known to be down: 503) no name is left reserved.
      const upload = await blobs.signUpload(file.blobKey, { expiresInSeconds: UPLOAD_URL_TTL_SEC, maxBytes: MAX_FILE_BYTES });
      await repo.insertFile(file);
      return { file, upload };
    },

    /** DELETE /file: the record and the blob go at once (pending registrations too). */
    async deleteFile(accountId: string, dirId: string, fileName: string): Promise<FileDoc> {
      await liveDirectory(accountId, dirId);
      const file = await repo.fileByName(dirId, fileName);
      if (!file) throw Errors.fileNotFound();
      await repo.deleteFile(file._id);
      await blobs.delete(file.blobKey);
      return file;
    },

    async signDownload(accountId: string, dirId: string, fileName: string, expiresInSeconds: number) {
      return signFile(await uploadedFile(accountId, dirId, fileName), expiresInSeconds);
    },

    /**
     * A download URL for this stored file (not whatever holds its name now): a store racing with
     * overwrite may already have replaced it, and its URL then answers 404 like any replaced file's.
     */
    signFile,

    /** Keeps a media verdict with the file, if the file still holds that blob. */
    async recordMediaProbe(accountId: string, dirId: string, fileName: string, blobKey: string, mediaProbe: string): Promise<boolean> {
      if (mediaProbe.length > MAX_MEDIA_PROBE_CHARS) throw Errors.invalidRequest('media probe too large');
      const file = await uploadedFile(accountId, dirId, fileName);
      if (file.blobKey !== blobKey) return false;
      // A presigned S3 PUT can be repeated until its URL expires: until then the blob may change.
      if (directUploads && file.uploadExpiresAt > now()) return false;
      return repo.setMediaProbe(file._id, blobKey, mediaProbe);
    },

    /**
     * Stores bytes as a file of a live directory (job outputs); replaces a same-named file when
     * asked. One path for both bodies: only how the blob is written differs.
     */
    async storeFile(accountId: string, dirId: string, fileName: string, body: StoreBody, overwrite: boolean): Promise<FileDoc> {
      if (!('stream' in body) && !takesLocalFiles) throw localStoreRefused('this Storage does not share a disk with Jobs');
      assertFileName(fileName);
      await liveDirectory(accountId, dirId);
      const fileId = newId('f_', 20);
      const blobKey = blobKeyFor(accountId, dirId, fileId);
      let size: number;
      try {
        ({ size } = await putBlob(blobKey, body, MAX_FILE_BYTES));
      } catch (err) {
        if (err instanceof BlobTooLargeError) throw Errors.fileTooLarge(fileName, err.size);
        throw err;
      }
      const contentType = await sniffContentType(blobs, blobKey);
      const at = now();
      const file: FileDoc = {
        _id: fileId,
        accountId,
        dirId,
        fileName,
        blobKey,
        state: 'uploaded',
        addedOn: at,
        uploadExpiresAt: at,
        size,
        contentType,
      };
      try {
        // Stores of one name racing with overwrite (two jobs writing out.jpg into one directory
        // at once) each replace what they find; one that loses the insert replaces the winner,
        // so the last one stored remains and none fails.
        for (let attempt = 1; ; attempt++) {
          const existing = await repo.fileByName(dirId, fileName);
          if (existing) {
            if (!overwrite) throw Errors.fileExists();
            if (await repo.deleteFile(existing._id)) await blobs.delete(existing.blobKey);
          }
          if (await repo.insertFileIfFree(file)) return file;
          if (!overwrite || attempt >= MAX_OVERWRITE_RACES) throw Errors.fileExists();
        }
      } catch (err) {
        // An outage can hide an insert that was applied (MongoDB's reply lost to a timeout): the
        // blob goes only when no record names it. When that cannot be told, it stays (an orphan
        // at worst, removed with its directory), never a listed file without its bytes.
        const recorded = await repo.fileByBlobKey(blobKey).catch(() => undefined);
        if (recorded === null) await blobs.delete(blobKey);
        throw err;
      }
    },
  };
}

export type Storage = ReturnType<typeof createStorage>;
