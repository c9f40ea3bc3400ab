// Counts bytes flowing through, fails the stream past a limit (so nothing beyond it is written),
// and keeps the first bytes for media type detection without a second read.
import { Transform, type TransformCallback } from 'node:stream';
import { BlobTooLargeError } from './types.js';

/** file-type looks at no more than this many leading bytes. */
export const SNIFF_BYTES = 4100;

export class ByteCounter extends Transform {
  bytes = 0;
  private readonly headChunks: Buffer[] = [];
  private headLength = 0;

  constructor(private readonly maxBytes = Number.POSITIVE_INFINITY, private readonly keepHead = 0) {
    super();
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
