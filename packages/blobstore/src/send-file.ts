// Sends a byte range of an open file as a response body through two reused buffers: one is read
// from the disk while the other is on its way to the socket. A read stream would allocate a new
// buffer per chunk, and the garbage of a 1 GB download grows the process by up to V8's external
// memory limit (64 MB) before a collection frees it; this holds two chunks (1 MB) per download,
// or two of the range's size when that is smaller. 512 KB reads: with a client that is not itself
// the bottleneck (the bench's zero-copy client), 1 GB downloads ran at 2.93 GB/s against
// 2.13-2.78 GB/s with 256 KB (cp of the file: 3.4 GB/s); 1 MB (2.97-3.13 GB/s) would double the
// memory per download for no clear gain. To curl, 256 KB had made 1.25 GB/s of the 64 KB
// default's 0.8.
import type { FileHandle } from 'node:fs/promises';
import type { Writable } from 'node:stream';

export const SEND_CHUNK_BYTES = 512 * 1024;

/**
 * Writes bytes `start`..`end` (inclusive) of `handle` to `out`, then ends it. Rejects if the
 * receiver goes away or the file turns out shorter than the range; `out` is then unfinished.
 */
export async function sendFileRange(
  handle: FileHandle,
  out: Writable,
  start: number,
  end: number,
  chunkBytes = SEND_CHUNK_BYTES,
): Promise<void> {
  const size = Math.min(chunkBytes, end - start + 1);
  const buffers = [Buffer.allocUnsafe(size), Buffer.allocUnsafe(size)];
  let writing: Promise<void> = Promise.resolve();
  for (let pos = start, turn = 0; pos <= end; turn ^= 1) {
    const buffer = buffers[turn]!;
    // This buffer's last write was awaited in the turn before: it is free again.
    const { bytesRead } = await handle.read(buffer, 0, Math.min(size, end - pos + 1), pos);
    if (bytesRead === 0) throw new Error('The file is shorter than the range being sent.');
    pos += bytesRead;
    await writing;
    writing = settle(out, (done) => out.write(buffer.subarray(0, bytesRead), done));
    writing.catch(() => undefined); // it may fail during the next read: awaited (and thrown) after it
  }
  await writing;
  await settle(out, (done) => out.end(done));
}

/**
 * Runs a write or end whose callback says the bytes were handed to the kernel (so the buffer may
 * be reused). A response whose socket closes first may never call it: closing rejects instead.
 */
function settle(out: Writable, start: (done: (err?: Error | null) => void) => void): Promise<void> {
  if (out.destroyed) return Promise.reject(new Error('The receiver went away.'));
  return new Promise((resolve, reject) => {
    const onClose = () => reject(new Error('The receiver went away.'));
    out.once('close', onClose);
    start((err) => {
      out.off('close', onClose);
      if (err) reject(err);
      else resolve();
    });
  });
}
