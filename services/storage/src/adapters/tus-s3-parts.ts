// S3 (S3_UPLOADS=storage): the parts of a resumable upload in an S3 multipart upload through
// @tus/s3-store, under its own prefix: the upload of blob key K is the object `tus/K` (its
// multipart upload, completed there), with `tus/K.info` (the record) and `tus/K.part` (a tail
// shorter than S3's 5 MiB minimum part, carried to the next PATCH). Only once the registration
// is claimed is the completed object copied into K (inside S3) and the tus objects deleted: a
// file the plain PUT stored first is never overwritten.
import { Readable } from 'node:stream';
import { S3Store, type MetadataValue } from '@tus/s3-store';
import type { KvStore } from '@tus/server';
import type { S3BlobStore } from '@media/blobstore';
import type { TusParts } from './tus-parts.js';

/** Users' keys start with `acc_`, job parts' with `parts/`: no blob key starts with this. */
const PREFIX = 'tus/';
/** S3Store's part size (its default): parts are cut to this size in TMPDIR before they go to S3. */
export const TUS_S3_PART_BYTES = 8 * 1024 * 1024;
/**
 * S3Store's permits (parts being cut in TMPDIR or sent to S3, over every upload of this process)
 * per upload request the listener lets in at once (S3_UPLOADS_IN_FLIGHT). S3Store takes a permit
 * before it fills a part from the request's body and holds it while the client sends: with one
 * permit per request being filled and as many again for parts on their way to S3, a PATCH waits
 * at most for S3 to take parts, never on another client's pace. TMPDIR then holds at most twice
 * as many 8 MiB parts as requests, plus per request the previous request's tail (under 5 MiB)
 * fetched back from S3: 21 MiB per request the listener lets in.
 */
export const TUS_S3_PERMITS_PER_UPLOAD = 2;
/** The size S3Store assumes for an upload whose length is not declared yet (its maxUploadSize). */
const S3_STORE_MAX_UPLOAD_BYTES = 5 * 1024 ** 4;

/**
 * No cache of the upload records: another replica may have ended and created again the upload of
 * a key, and a cached record would name a multipart upload that is gone. One GET per request.
 */
const noCache: KvStore<MetadataValue> = {
  get: async () => undefined,
  set: async () => undefined,
  delete: async () => undefined,
};

export interface S3TusPartsOptions {
  /** Upload requests the listener serves at once (S3_UPLOADS_IN_FLIGHT). */
  uploadsInFlight: number;
}

export function s3TusParts(blobs: S3BlobStore, { uploadsInFlight }: S3TusPartsOptions): TusParts {
  const datastore = new S3Store({
    partSize: TUS_S3_PART_BYTES,
    // S3Store sizes the parts of an upload of unknown length (creation-defer-length) for its own
    // 5 TiB maximum within this many parts: 550 MB each at S3's 10,000. A file ends at 5 GB here
    // (597 parts of 8 MiB, far under S3's limit), so this keeps every part at 8 MiB.
    maxMultipartParts: Math.ceil(S3_STORE_MAX_UPLOAD_BYTES / TUS_S3_PART_BYTES),
    maxConcurrentPartUploads: TUS_S3_PERMITS_PER_UPLOAD * uploadsInFlight,
    cache: noCache,
    // No S3 object tags (not every S3-compatible store has them); the sweep expires uploads.
    useTags: false,
    s3ClientConfig: { ...blobs.clientConfig, bucket: blobs.bucket },
  });
  const keyOf = (id: string) => (id.startsWith(PREFIX) ? id.slice(PREFIX.length) : undefined);
  return {
    datastore,
    idOf: (key) => `${PREFIX}${key}`,
    keyOf,

    async moveToBlob(upload, key) {
      // S3Store completes the multipart upload into `tus/K` as the last part lands, and only
      // then: a 0-byte upload has no last part (POST alone completes it), and a completion that
      // failed leaves every byte in the parts while the offset already reads the size. Either
      // way it is completed here (an empty write; with no part at all, S3Store adds one empty
      // part, as S3 completes no multipart upload without one). A concurrent completion (another
      // HEAD, another replica) may have done it first: the object is then there.
      if (!(await blobs.head(upload.id))) {
        await datastore.write(Readable.from([]), upload.id, upload.offset).catch(async (err: unknown) => {
          if (!(await blobs.head(upload.id))) throw err;
        });
      }
      // One CopyObject takes up to 5 GiB, above the 5 GB a file may have.
      await blobs.copy(upload.id, key);
      const head = await blobs.head(key);
      if (!head) throw new Error(`the copy of ${upload.id} into ${key} is not there`);
      return { size: head.size };
    },

    async remove(id) {
      // S3Store aborts the multipart upload its record names and deletes the object and record;
      // a multipart upload without a record (a crash between the two) is found by listing.
      await datastore.remove(id).catch(() => undefined);
      for await (const upload of blobs.listMultipartUploads(id)) {
        if (upload.key === id) await blobs.abortMultipartUpload(upload.key, upload.uploadId);
      }
      for (const key of [id, `${id}.info`, `${id}.part`]) await blobs.delete(key);
    },

    async *list() {
      const seen = new Set<string>();
      const once = (key: string) => {
        const id = key.replace(/\.(info|part)$/, '');
        if (seen.has(id)) return undefined;
        seen.add(id);
        return id;
      };
      for await (const key of blobs.listKeys(PREFIX)) {
        const id = once(key);
        if (id) yield id;
      }
      for await (const upload of blobs.listMultipartUploads(PREFIX)) {
        const id = once(upload.key);
        if (id) yield id;
      }
    },
  };
}
