// The encoded parts of split jobs (issue 42): handed from the Jobs replica that encoded a part to
// the one that joins them, through the blob store, since replicas share no disk. They belong to
// no directory or account: never listed, downloadable or swept with a directory.
import type { Readable } from 'node:stream';
import { BlobNotFoundError, BlobTooLargeError, type BlobStore } from '@media/blobstore';
import { DomainError, Errors, isNoSpace, type DiskReserve } from '@media/platform';
import { MAX_FILE_BYTES } from './rules.js';

export interface PartRef {
  jobId: string;
  runId: string;
  index: number;
}

/**
 * Users' blobs are keyed `<account id>/...` and account ids are `acc_...`, so no user key starts
 * with this; part keys are built only from checked ids, so no caller reaches another key.
 */
const PARTS_PREFIX = 'parts/';
/** Jobs' ids (job_..., a run's id): plain ASCII words, bounded like directory ids. */
const PART_ID = /^[A-Za-z0-9_-]{1,64}$/;

function checkedId(value: string, field: string): string {
  if (!PART_ID.test(value)) throw Errors.invalidRequest(`${field} must be 1 to 64 letters, digits, underscores or hyphens`);
  return value;
}

function checkedIndex(index: number): number {
  if (!Number.isSafeInteger(index) || index < 0) throw Errors.invalidRequest('index must be a whole number from 0');
  return index;
}

/** The key of one part; throws InvalidArgument for ids that are not id-like. */
export function partKey(ref: PartRef): string {
  return `${runPrefix(ref.jobId, ref.runId)}${checkedIndex(ref.index)}.mkv`;
}

const jobPrefix = (jobId: string) => `${PARTS_PREFIX}${checkedId(jobId, 'job_id')}/`;
const runPrefix = (jobId: string, runId: string) => `${jobPrefix(jobId)}${checkedId(runId, 'run_id')}/`;

const partNotFound = (ref: PartRef) =>
  new DomainError('not_found', `Part ${ref.index} of job ${ref.jobId}, run ${ref.runId}, is not stored: it was never put, or was deleted.`);

export function createParts({ blobs, disk, maxBytes = MAX_FILE_BYTES }: { blobs: BlobStore; disk?: DiskReserve; maxBytes?: number }) {
  return {
    /** Streams a part in, replacing one of the same ref (a part encoded again). */
    async put(ref: PartRef, body: Readable): Promise<{ size: number }> {
      const key = partKey(ref);
      // The reserve uploads keep (503 until space is freed); the part's size is not known ahead.
      await disk?.assertRoom();
      try {
        return await blobs.put(key, body, { maxBytes, contentType: 'video/x-matroska' });
      } catch (err) {
        // The largest file the service keeps: a bigger part could never be joined into an output.
        if (err instanceof BlobTooLargeError) throw Errors.fileTooLarge(`part ${ref.index} of ${ref.jobId}`, err.size);
        if (isNoSpace(err)) throw Errors.diskFull();
        throw err;
      }
    },

    /** The part's bytes as a stream; NotFound when absent. */
    async get(ref: PartRef): Promise<Readable> {
      const key = partKey(ref);
      try {
        return await blobs.get(key);
      } catch (err) {
        if (err instanceof BlobNotFoundError) throw partNotFound(ref);
        throw err;
      }
    },

    /** Removes one run's parts, or every run's of the job; answers how many were removed. */
    async delete(jobId: string, runId?: string): Promise<number> {
      return blobs.deletePrefix(runId === undefined ? jobPrefix(jobId) : runPrefix(jobId, runId));
    },
  };
}

export type Parts = ReturnType<typeof createParts>;
