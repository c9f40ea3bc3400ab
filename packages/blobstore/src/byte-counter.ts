// Counts bytes flowing through, fails the stream past a limit (so nothing beyond it is written),
// and keeps the first bytes for media type detection without a second read.
import { Transform, type TransformCallback } from 'node:stream';
import { BlobTooLargeError } from './types.js';

/** file-type looks at no more than this many leading bytes. */
export const SNIFF_BYTES = 4100;

/**
 * Buffering of the streams that carry an upload from the socket to the file: room for several 64 KB
 * socket reads, so the upload keeps flowing while a write is on its way to the disk.
 */
export const STREAM_BUFFER_BYTES = 256 * 1024;

export class ByteCounter extends Transform {
  bytes = 0;
  private readonly headChunks: Buffer[] = [];
  private headLength = 0;

  constructor(
    private readonly maxBytes = Number.POSITIVE_INFINITY,
    private readonly keepHead = 0,
  ) {
    // With the 16 KB default every socket read would pause the upload until the disk caught up.
    super({ highWaterMark: STREAM_BUFFER_BYTES });
  }

  /** The first `keepHead` bytes seen (fewer when the stream was shorter). */
  get head(): Buffer {
    return Buffer.concat(this.headChunks, this.headLength);
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.bytes += chunk.length;
    if (this.bytes > this.maxBytes) {
      callback(new BlobTooLargeError(this.bytes, this.maxBytes));
      return;
    }
    if (this.headLength < this.keepHead) {
      const part = chunk.subarray(0, this.keepHead - this.headLength);
      this.headChunks.push(Buffer.from(part)); // a copy: the caller may reuse its buffer
      this.headLength += part.length;
    }
    callback(null, chunk);
  }
}
