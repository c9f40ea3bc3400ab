// What Storage's rules need of its store (implemented by the repository adapter): the directory
// and file documents and the repository interface. The domain depends on these, never on the store's code.

export type FileState = 'pending' | 'uploading' | 'uploaded';

export interface DirectoryDoc {
  _id: string;
  accountId: string;
  ttl: number;
  createdAt: Date;
  expiresAt: Date;
  /** Set by the sweeper replica that claimed the expired directory. */
  sweepClaimedAt: Date | null;
  [k: string]: unknown;
}

export interface FileDoc {
  _id: string; // internal file id: the blob key's last segment, never reused
  accountId: string;
  dirId: string;
  fileName: string;
  blobKey: string;
  state: FileState;
  addedOn: Date;
  uploadExpiresAt: Date;
  /** When an upload claimed the registration (state `uploading`): a claim a crash left stays. */
  claimedAt?: Date;
  size: number;
  contentType: string | null;
  /** What the demuxer allow-list check found in this blob (JSON written by Jobs or Probe). */
  mediaProbe?: string | null;
  [k: string]: unknown;
}

export interface StorageRepository {
  insertDirectory(doc: DirectoryDoc): Promise<void>;
  /** The account's directory if it is still live at `now`. */
  liveDirectory(accountId: string, dirId: string, now: Date): Promise<DirectoryDoc | null>;
  liveDirectories(accountId: string, now: Date): Promise<DirectoryDoc[]>;
  /** Atomically claims one expired directory for sweeping (stale claims are taken over). */
  claimExpired(now: Date, staleBefore: Date): Promise<DirectoryDoc | null>;
  deleteDirectory(dirId: string): Promise<boolean>;
  /** Inserts unless the name is taken in the directory (false then). */
  insertFileIfFree(doc: FileDoc): Promise<boolean>;
  /** Inserts; a name taken in the directory is the 409 "File name already exists in directory". */
  insertFile(doc: FileDoc): Promise<void>;
  fileByName(dirId: string, fileName: string): Promise<FileDoc | null>;
  fileByBlobKey(blobKey: string): Promise<FileDoc | null>;
  uploadedFiles(dirId: string): Promise<FileDoc[]>;
  pendingFiles(dirId: string): Promise<FileDoc[]>;
  countFiles(dirId: string): Promise<number>;
  deleteFile(id: string): Promise<boolean>;
  deleteFiles(dirId: string): Promise<number>;
  /** pending -> uploading, once: a second PUT to the same URL finds nothing to claim. */
  claimUpload(id: string, at?: Date): Promise<FileDoc | null>;
  releaseUpload(id: string): Promise<number>;
  /** A resumable upload moved: its registration lives at least until `until` (never shortened). */
  renewUpload(id: string, until: Date): Promise<number>;
  /** Records the allow-list check's finding for an uploaded blob; false when the file changed meanwhile. */
  setMediaProbe(id: string, blobKey: string, mediaProbe: string): Promise<boolean>;
  completeUpload(id: string, size: number, contentType: string | null): Promise<FileDoc | null>;
  /** Records an upload found by looking (settle): only while nothing claimed the registration (pending). */
  settleUpload(id: string, size: number, contentType: string | null): Promise<FileDoc | null>;
}
