// Small helpers shared by the blob store tests.
import { createHash, randomBytes } from 'node:crypto';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';

/** The FileHandle methods the writer tests spy on. */
export interface FileHandleMethods {
  writev: (buffers: Buffer[]) => Promise<unknown>;
  datasync: () => Promise<void>;
  sync: () => Promise<void>;
}

/** FileHandle's prototype, to spy on; from a probe file opened (and closed) in `dir`. */
export async function fileHandlePrototype(dir: string): Promise<FileHandleMethods> {
  const probe = await open(join(dir, 'probe'), 'w');
  await probe.close();
  return Object.getPrototypeOf(probe) as FileHandleMethods;
}

export function randomData(bytes: number): Buffer {
  return randomBytes(bytes);
}

/** A stream delivering `data` in chunks, as an upload would arrive. */
export function streamOf(data: Buffer, chunkSize = 64 * 1024): Readable {
  return Readable.from(
    (function* () {
      for (let i = 0; i < data.length; i += chunkSize) yield data.subarray(i, i + chunkSize);
    })(),
  );
}

export async function readAll(stream: AsyncIterable<unknown>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk as Uint8Array));
  return Buffer.concat(chunks);
}

export function sha256(data: Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * PNG signature, IHDR chunk and the header of an IDAT chunk: file-type walks the chunks and says
 * image/png at IDAT, so whatever follows cannot change the answer.
 */
export const PNG_HEAD = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000049444154', 'hex');
