// Writes a stream into a new file through one descriptor, several chunks per system call
// (writev), buffering 256 KB by default instead of createWriteStream's 16 KB: at 16 KB a 1 GB URL
// input arrived at 220-270 MB/s over loopback HTTPS, at 256 KB 360-490 MB/s.
import { open, type FileHandle } from 'node:fs/promises';
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { STREAM_BUFFER_BYTES } from './byte-counter.js';

export interface FileWriterOptions {
  /**
   * How the file is opened (default 'wx': created, and an existing file is an error; 'w': created
   * or emptied; 'r+': an existing file, written from `start`, its other bytes kept).
   */
  flags?: 'wx' | 'w' | 'r+';
  /** Where the writing starts in the file (default: at its start, or where the last write ended). */
  start?: number;
  /** Bytes buffered before the source is paused (default STREAM_BUFFER_BYTES, 256 KB). */
  highWaterMark?: number;
  /**
   * The chunks are this writer's alone (an HTTP body: Node hands over each piece in a buffer of
   * its own that nothing else keeps): free each one's memory once it is written. Otherwise they
   * wait for the GC. Node 24's V8 starts a young collection for such memory only at 128 MB of it
   * (Node 20 and 22: 32 MB). On Node 24 a 1 GB upload grew the service by 68-79 MB and a 1 GB
   * URL input the process by 93 MB; freed, by 24-27 and 41-42 MB.
   */
  freeWritten?: boolean;
}

/**
 * Creates `path` (by default exclusively: it must not exist) and writes the stream into it. On error or
 * destroy the descriptor is closed; the partial file stays for the caller to remove.
 */
export class FileWriter extends Writable {
  private handle: FileHandle | undefined;
  private readonly freeWritten: boolean;
  private readonly flags: 'wx' | 'w' | 'r+';
  /** The file offset of the next write; null: the descriptor's own position. */
  private position: number | null;

  constructor(
    private readonly path: string,
    options: FileWriterOptions = {},
  ) {
    super({ highWaterMark: options.highWaterMark ?? STREAM_BUFFER_BYTES });
    this.freeWritten = options.freeWritten ?? false;
    this.flags = options.flags ?? 'wx';
    this.position = options.start ?? null;
  }

  override _construct(callback: (err?: Error | null) => void): void {
    open(this.path, this.flags).then((handle) => {
      this.handle = handle;
      callback();
    }, callback);
  }

  override _writev(chunks: { chunk: Buffer }[], callback: (err?: Error | null) => void): void {
    const buffers = chunks.map((c) => c.chunk);
    this.writeAll(this.handle!, buffers).then(() => {
      if (this.freeWritten) buffers.forEach(freeBuffer);
      callback();
    }, callback);
  }

  override _final(callback: (err?: Error | null) => void): void {
    const handle = this.handle!;
    (async () => {
      await this.beforeClose(handle);
      this.handle = undefined;
      await handle.close();
    })().then(() => callback(), callback);
  }

  override _destroy(err: Error | null, callback: (err?: Error | null) => void): void {
    const handle = this.handle;
    this.handle = undefined;
    // FileHandle.close waits for a write or datasync still running on it.
    Promise.resolve(handle?.close()).then(
      () => callback(err),
      (closeErr: Error) => callback(err ?? closeErr),
    );
  }

  /** Writes every byte of `buffers` (a short write is legal, and rare: the rest follows). */
  protected async writeAll(handle: FileHandle, buffers: Buffer[]): Promise<number> {
    let total = 0;
    for (const b of buffers) total += b.length;
    const at = this.position;
    let done = (await handle.writev(buffers, at ?? undefined)).bytesWritten;
    let rest = done < total ? Buffer.concat(buffers).subarray(done) : undefined;
    while (rest && rest.length > 0) {
      const { bytesWritten } = await handle.write(rest, 0, rest.length, at === null ? null : at + done);
      done += bytesWritten;
      rest = rest.subarray(bytesWritten);
    }
    if (at !== null) this.position = at + total;
    return total;
  }

  /** Runs once all data is written, before the descriptor is closed (DurableFileWriter syncs). */
  protected async beforeClose(_handle: FileHandle): Promise<void> {}
}

/**
 * pipeline() into `writer`, settling only once the writer has closed its file. pipeline alone can
 * settle sooner: it counts an early 'close' of a middle stream as one more finish, so with a source
 * that has already failed it may reject while the writer is still creating its file, and a caller
 * removing the partial file then would leave behind the file created after it.
 */
export async function pipelineToFile(
  streams: (NodeJS.ReadableStream | NodeJS.ReadWriteStream)[],
  writer: FileWriter,
  options?: { signal?: AbortSignal },
): Promise<void> {
  try {
    // An undefined options argument would be taken for one more stream.
    await (options ? pipeline([...streams, writer], options) : pipeline([...streams, writer]));
  } catch (err) {
    // pipeline has destroyed the writer, unless it refused its arguments before touching it; the
    // 'close' follows the descriptor's close.
    if (!writer.destroyed) writer.destroy();
    if (!writer.closed) await new Promise((resolve) => writer.once('close', resolve));
    throw err;
  }
}

/**
 * Frees a buffer's memory now instead of at the next GC, by transferring its ArrayBuffer to an
 * empty one (which detaches it). Only a buffer spanning its whole ArrayBuffer: a view into a larger
 * one (Node's pool for small buffers) shares it with others. Node 20 has no `transfer`: its GC
 * keeps up there.
 */
function freeBuffer(buf: Buffer): void {
  const whole = buf.buffer as ArrayBuffer & { transfer?: (length: number) => ArrayBuffer };
  if (buf.byteOffset === 0 && buf.byteLength === whole.byteLength && typeof whole.transfer === 'function') whole.transfer(0);
}
