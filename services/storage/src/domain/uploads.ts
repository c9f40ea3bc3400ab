// The signed-URL side of uploads and downloads (the listener: local disk, and S3 with
// S3_UPLOADS=storage): single use, size limit, and the same expiry and deletion rules as the API.
import { BlobHttpError, type SignedBlobHooks } from '@media/blobstore';
import { DomainError, Errors, isNoSpace, type DiskReserve } from '@media/platform';
import type { AccountGate } from './account-gate.js';
import type { FileDoc, StorageRepository } from './ports.js';
import { MAX_FILE_BYTES } from './rules.js';

/** The spec's error shape for a disk below its reserve (or full): 503 with Retry-After. */
const diskFull = (): BlobHttpError => {
  const err = Errors.diskFull();
  return new BlobHttpError(err.status, err.message, err.retryAfterSec);
};

/** A refusal of the domain (the account's 403, Auth down's 503) as the listener answers it. */
const asBlobError = (err: unknown): unknown =>
  err instanceof DomainError ? new BlobHttpError(err.status, err.message, err.retryAfterSec) : err;

export function createUploadHooks(
  repo: StorageRepository,
  now: () => Date,
  onError: NonNullable<SignedBlobHooks['onError']>,
  disk?: DiskReserve,
  accounts?: AccountGate,
): SignedBlobHooks {
  async function fileInLiveDirectory(key: string): Promise<FileDoc> {
    const file = await repo.fileByBlobKey(key);
    if (!file) throw new BlobHttpError(404, Errors.fileNotFound().message);
    if (!(await repo.liveDirectory(file.accountId, file.dirId, now()))) throw new BlobHttpError(404, Errors.directoryNotFound().message);
    return file;
  }
  return {
    async beforeUpload(key, { contentLength }) {
      const file = await fileInLiveDirectory(key);
      // Before any byte is read: an account no longer active may not go on uploading.
      await accounts?.assertActive(file.accountId).catch((err: unknown) => {
        throw asBlobError(err);
      });
      if (contentLength !== undefined && contentLength > MAX_FILE_BYTES) {
        throw new BlobHttpError(403, Errors.fileTooLarge(file.fileName, contentLength).message);
      }
      // Before the claim: refused for space, the URL stays usable for a retry.
      await disk?.assertRoom(contentLength).catch((err: unknown) => {
        throw err instanceof DomainError ? diskFull() : err;
      });
      if (file.state === 'uploaded' || !(await repo.claimUpload(file._id, now()))) {
        throw new BlobHttpError(
          409,
          'This upload URL has already been used. To replace the file, delete it (DELETE /file/{dirId}/{fileName}), then register the name again (POST /file) and upload to the new URL.',
        );
      }
      // A chunked body over the limit is refused later, by the count: name the file as the user does.
      return { fileName: file.fileName };
    },
    async uploadFailed(key) {
      // The client dropped mid-PUT (or the body was refused): the same URL may be used again.
      const file = await repo.fileByBlobKey(key);
      if (file) await repo.releaseUpload(file._id);
    },
    async afterUpload(key, { size, contentType }) {
      // The directory may have expired, or the file been deleted, while the bytes streamed in.
      const file = await fileInLiveDirectory(key);
      if (!(await repo.completeUpload(file._id, size, contentType))) throw new BlobHttpError(409, 'This upload URL has already been used.');
    },
    async beforeDownload(key) {
      const file = await fileInLiveDirectory(key);
      if (file.state !== 'uploaded') throw new BlobHttpError(404, Errors.fileNotFound().message);
      return { contentType: file.contentType, fileName: file.fileName };
    },
    onError,
    storeFailure: (err) => (isNoSpace(err) ? diskFull() : undefined),
  };
}
