// Storage's own data: directories and the files registered in them. Bytes live in the blob store.
import { DuplicateKeyError, type DocStore } from '@media/docstore';
import { Errors } from '@media/platform';
import type { DirectoryDoc, FileDoc, StorageRepository } from '../domain/ports.js';

export async function openStorageRepository(store: DocStore): Promise<StorageRepository> {
  const dirs = store.collection<DirectoryDoc>('directories');
  const files = store.collection<FileDoc>('files');
  await dirs.createIndex({ keys: { accountId: 1, expiresAt: 1 } });
  await dirs.createIndex({ keys: { expiresAt: 1 } });
  await files.createIndex({ keys: { dirId: 1, fileName: 1 }, unique: true });
  await files.createIndex({ keys: { blobKey: 1 }, unique: true });

  /** Inserts unless the name is taken in the directory (false then). */
  async function insertFileIfFree(doc: FileDoc): Promise<boolean> {
    try {
      await files.insertOne(doc);
      return true;
    } catch (err) {
      if (err instanceof DuplicateKeyError) return false;
      throw err;
    }
  }

  return {
    insertDirectory: (doc: DirectoryDoc) => dirs.insertOne(doc),
    /** The account's directory if it is still live at `now`. */
    liveDirectory: (accountId: string, dirId: string, now: Date) => dirs.findOne({ _id: dirId, accountId, expiresAt: { $gt: now } }),
    liveDirectories: (accountId: string, now: Date) =>
      dirs.find({ accountId, expiresAt: { $gt: now } }, { sort: { createdAt: 1, _id: 1 } }),
    /** Atomically claims one expired directory for sweeping (stale claims are taken over). */
    claimExpired: (now: Date, staleBefore: Date) =>
      dirs.findOneAndUpdate(
        { expiresAt: { $lte: now }, $or: [{ sweepClaimedAt: null }, { sweepClaimedAt: { $lt: staleBefore } }] },
        { $set: { sweepClaimedAt: now } },
      ),
    deleteDirectory: (dirId: string) => dirs.deleteOne({ _id: dirId }),

    insertFileIfFree,
    /** Inserts; a name taken in the directory is the 409 "File name already exists in directory". */
    async insertFile(doc: FileDoc): Promise<void> {
      if (!(await insertFileIfFree(doc))) throw Errors.fileExists();
    },
    fileByName: (dirId: string, fileName: string) => files.findOne({ dirId, fileName }),
    fileByBlobKey: (blobKey: string) => files.findOne({ blobKey }),
    uploadedFiles: (dirId: string) => files.find({ dirId, state: 'uploaded' }, { sort: { addedOn: 1, fileName: 1 } }),
    pendingFiles: (dirId: string) => files.find({ dirId, state: { $ne: 'uploaded' } }),
    countFiles: (dirId: string) => files.countDocuments({ dirId }),
    deleteFile: (id: string) => files.deleteOne({ _id: id }),
    deleteFiles: (dirId: string) => files.deleteMany({ dirId }),
    /** pending -> uploading, once: a second PUT to the same URL finds nothing to claim. */
    claimUpload: (id: string, at = new Date()) =>
      files.findOneAndUpdate({ _id: id, state: 'pending' }, { $set: { state: 'uploading', claimedAt: at } }),
    releaseUpload: (id: string) => files.updateMany({ _id: id, state: 'uploading' }, { $set: { state: 'pending' } }),
    renewUpload: (id: string, until: Date) =>
      files.updateMany({ _id: id, state: 'pending', uploadExpiresAt: { $lt: until } }, { $set: { uploadExpiresAt: until } }),
    setMediaProbe: async (id: string, blobKey: string, mediaProbe: string) =>
      (await files.updateMany({ _id: id, blobKey, state: 'uploaded' }, { $set: { mediaProbe } })) > 0,
    settleUpload: (id: string, size: number, contentType: string | null) =>
      files.findOneAndUpdate({ _id: id, state: 'pending' }, { $set: { state: 'uploaded', size, contentType } }),
    completeUpload: (id: string, size: number, contentType: string | null) =>
      files.findOneAndUpdate({ _id: id, state: { $ne: 'uploaded' } }, { $set: { state: 'uploaded', size, contentType } }),
  };
}
