// Streams a body of unknown length into S3 without holding it whole: one PutObject when it fits
// in a part, else a multipart upload of PART_SIZE parts (aborted on any failure, so a refused or
// broken upload leaves no object behind). Parts go one at a time: memory stays at about one part.
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  PutObjectCommand,
  UploadPartCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
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
  // Errors of either stream end the iteration below; leaving it early destroys both.
  const counted = pipeline(body, counter, () => undefined);
  let chunks: Buffer[] = [];
  let buffered = 0;
  let uploadId: string | undefined;
  const parts: { ETag: string; PartNumber: number }[] = [];

  const flushPart = async (): Promise<void> => {
    const PartNumber = parts.length + 1;
    const Body = Buffer.concat(chunks, buffered);
    chunks = [];
    buffered = 0;
    const out = await client.send(
      new UploadPartCommand({ Bucket: bucket, Key: key, UploadId: uploadId, PartNumber, Body, ContentLength: Body.length }),
    );
    parts.push({ ETag: out.ETag ?? '', PartNumber });
  };

  try {
    for await (const chunk of counted) {
      chunks.push(chunk as Buffer);
      buffered += (chunk as Buffer).length;
      if (buffered >= PART_SIZE) {
        uploadId ??= await createMultipartUpload(client, options);
        await flushPart();
      }
    }
    if (uploadId === undefined) {
      const Body = Buffer.concat(chunks, buffered);
      await client.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body, ContentLength: Body.length, ContentType: contentType }));
    } else {
      if (buffered > 0) await flushPart();
      await client.send(
        new CompleteMultipartUploadCommand({ Bucket: bucket, Key: key, UploadId: uploadId, MultipartUpload: { Parts: parts } }),
      );
    }
  } catch (err) {
    if (uploadId !== undefined) {
      // Best effort: a lifecycle rule for incomplete uploads is the backstop.
      await client.send(new AbortMultipartUploadCommand({ Bucket: bucket, Key: key, UploadId: uploadId })).catch(() => undefined);
    }
    throw err;
  }
  return { size: counter.bytes };
}

async function createMultipartUpload(client: S3Client, { bucket, key, contentType }: PutStreamOptions): Promise<string> {
  const out = await client.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key: key, ContentType: contentType }));
  if (!out.UploadId) throw new Error(`S3 returned no upload id for ${key}`);
  return out.UploadId;
}
