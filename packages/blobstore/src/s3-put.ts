// Streams a body of unknown length into S3 without holding it whole, with lib-storage's Upload:
// one PutObject when it fits in a part, else a multipart upload of PART_SIZE parts, aborted on any
// failure (the byte limit's too), so a refused or broken upload leaves no object behind. One part
// at a time (queueSize 1): memory stays at about one part (docs/decisions/0006-free-upload-buffers.md).
import type { S3Client } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { pipeline, type Readable } from 'node:stream';
import { ByteCounter } from './byte-counter.js';

/** S3 wants at least 5 MiB per part except the last, and at most 10,000 parts (80 GB at 8 MiB). */
export const PART_SIZE = 8 * 1024 * 1024;

export interface PutStreamOptions {
  bucket: string;
  key: string;
  maxBytes?: number;
  contentType?: string;
}

export async function putStream(client: S3Client, body: Readable, options: PutStreamOptions): Promise<{ size: number }> {
  const { bucket, key, contentType } = options;
  const counter = new ByteCounter(options.maxBytes);
  // An error of either stream (the byte limit's included) fails the upload, which aborts it.
  let streamError: unknown;
  const counted = pipeline(body, counter, (err) => {
    streamError ??= err;
  });
  const upload = new Upload({
    client,
    params: { Bucket: bucket, Key: key, Body: counted, ContentType: contentType },
    partSize: PART_SIZE,
    queueSize: 1,
    leavePartsOnError: false,
  });
  try {
    await upload.done();
  } catch (err) {
    // Upload throws the abort's own failure when that fails too (best effort: a lifecycle rule
    // for incomplete uploads is the backstop); the stream's error is the one that says why.
    throw streamError ?? err;
  } finally {
    // Upload stops reading at its first failure; the source must not stay open behind it.
    if (!counted.readableEnded) counted.destroy();
  }
  return { size: counter.bytes };
}
