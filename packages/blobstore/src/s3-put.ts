// Streams a body of unknown length into S3 without holding it whole, with lib-storage's Upload:
// one PutObject when it fits in a part, else a multipart upload of PART_SIZE parts, aborted on any
// failure (the byte limit's too), so a refused or broken upload leaves no object behind. One part
// at a time (queueSize 1): memory stays at about one part (docs/decisions/0006-free-upload-buffers.md).
import {
  AbortMultipartUploadCommand,
  CreateMultipartUploadCommand,
  type CreateMultipartUploadCommandOutput,
  type S3Client,
} from '@aws-sdk/client-s3';
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
  // Upload aborts after a failed part, not after a failed CompleteMultipartUpload: the upload id is
  // noted as the client answers (through a view of the client, not Upload's internals) to abort then too.
  let uploadId: string | undefined;
  let aborted = false;
  const noting = new Proxy(client, {
    get(target, prop, receiver) {
      if (prop !== 'send') return Reflect.get(target, prop, receiver);
      return async (...args: Parameters<S3Client['send']>) => {
        if (args[0] instanceof AbortMultipartUploadCommand) aborted = true;
        const out: unknown = await target.send(...args);
        if (args[0] instanceof CreateMultipartUploadCommand) uploadId = (out as CreateMultipartUploadCommandOutput).UploadId;
        return out;
      };
    },
  });
  const upload = new Upload({
    client: noting,
    params: { Bucket: bucket, Key: key, Body: counted, ContentType: contentType },
    partSize: PART_SIZE,
    queueSize: 1,
    leavePartsOnError: false,
  });
  try {
    await upload.done();
  } catch (err) {
    // Aborting twice is harmless (S3 answers NoSuchUpload); a failed abort leaves the parts to a
    // lifecycle rule for incomplete uploads (docs/operations/own-infrastructure.md).
    if (uploadId !== undefined && !aborted) {
      await client.send(new AbortMultipartUploadCommand({ Bucket: bucket, Key: key, UploadId: uploadId })).catch(() => undefined);
    }
    // Upload throws the abort's own failure when that fails too; the stream's error says why.
    throw streamError ?? err;
  } finally {
    // Upload stops reading at its first failure; the source must not stay open behind it.
    if (!counted.readableEnded) counted.destroy();
  }
  return { size: counter.bytes };
}
