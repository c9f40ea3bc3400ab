// Where a resumable upload's parts live until it completes, one implementation per backend
// (tus-disk-parts.ts, tus-s3-parts.ts). The rules (tus-uploads.ts) see only this.
import type { DataStore, Upload } from '@tus/server';

export interface TusParts {
  /** The @tus/server datastore receiving the parts. */
  readonly datastore: DataStore;
  /** The upload id of a blob key (one upload per signed URL, so per key). */
  idOf(key: string): string;
  /** The blob key of an upload id; undefined for a name that is none of ours. */
  keyOf(id: string): string | undefined;
  /**
   * Puts the completed upload's bytes under the blob key the plain PUT writes (called only once
   * the registration is claimed, so it never replaces a file stored another way); its size.
   */
  moveToBlob(upload: Upload, key: string): Promise<{ size: number }>;
  /** Removes the upload's parts and record; idempotent. */
  remove(id: string): Promise<void>;
  /** The ids of every upload with parts or a record stored. */
  list(): AsyncIterable<string>;
}
