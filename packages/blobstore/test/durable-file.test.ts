// The durable file writer: exact bytes, fsynced before `finish`, disk writes started while the
// stream is still arriving, an exclusive create, and a failed background sync failing the write.
import { jest } from '@jest/globals';
import { readFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { tempDir } from '@media/testkit';
import { DurableFileWriter } from '../src/durable-file.js';
import { fileHandlePrototype, randomData, sha256, streamOf, type FileHandleMethods } from './helpers.js';

let dir: { path: string; remove: () => Promise<void> };
let fileHandleProto: FileHandleMethods;

beforeAll(async () => {
  dir = await tempDir('blobstore-durable-');
  fileHandleProto = await fileHandlePrototype(dir.path);
});
afterEach(() => jest.restoreAllMocks());
afterAll(async () => {
  await dir.remove();
});

const openFds = async () => (await readdir('/proc/self/fd')).length;

it('writes every byte, syncing along the way and once more before it finishes', async () => {
  const datasync = jest.spyOn(fileHandleProto, 'datasync');
  const sync = jest.spyOn(fileHandleProto, 'sync');
  const data = randomData(5 * 1024 * 1024 + 123);
  const path = join(dir.path, 'a.bin');
  const writer = new DurableFileWriter(path, { syncEveryBytes: 1024 * 1024 });
  let syncedBeforeFinish = false;
  writer.on('finish', () => (syncedBeforeFinish = sync.mock.calls.length === 1));
  await pipeline(streamOf(data), writer);
  expect(sha256(await readFile(path))).toBe(sha256(data));
  expect(syncedBeforeFinish).toBe(true);
  // One background datasync at a time, each after at least 1 MB more: 1 to 5 of them.
  expect(datasync.mock.calls.length).toBeGreaterThanOrEqual(1);
  expect(datasync.mock.calls.length).toBeLessThanOrEqual(5);
});

it('refuses to write over a file that exists', async () => {
  const path = join(dir.path, 'exists.bin');
  await writeFile(path, 'old');
  await expect(pipeline(streamOf(randomData(1000)), new DurableFileWriter(path))).rejects.toMatchObject({ code: 'EEXIST' });
  expect(await readFile(path, 'utf8')).toBe('old');
});

it('fails the write when a background sync failed, and closes the file', async () => {
  const eio = Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' });
  jest.spyOn(fileHandleProto, 'datasync').mockRejectedValue(eio);
  const before = await openFds();
  const writer = new DurableFileWriter(join(dir.path, 'eio.bin'), { syncEveryBytes: 256 * 1024 });
  const closed = new Promise((resolve) => writer.once('close', resolve));
  await expect(pipeline(streamOf(randomData(3 * 1024 * 1024)), writer)).rejects.toBe(eio);
  await closed;
  expect(await openFds()).toBe(before);
});

it('closes the file when the source fails midway', async () => {
  const before = await openFds();
  const path = join(dir.path, 'broken.bin');
  async function* broken() {
    yield randomData(100_000);
    throw new Error('the upload was interrupted');
  }
  const writer = new DurableFileWriter(path);
  const closed = new Promise((resolve) => writer.once('close', resolve));
  await expect(pipeline(broken, writer)).rejects.toThrow('the upload was interrupted');
  await closed;
  expect(await openFds()).toBe(before);
});

describe('freeWritten (an HTTP request body: each chunk a buffer of its own)', () => {
  // Node 22 and later free such a buffer at once (ArrayBuffer.prototype.transfer); Node 20 has no
  // way to, and leaves it to the GC.
  const canFree = typeof (ArrayBuffer.prototype as { transfer?: unknown }).transfer === 'function';
  const own = (byte: number) => Buffer.alloc(64 * 1024, byte); // its own ArrayBuffer (not Node's pool)

  it('frees each chunk once written, never a view into a shared buffer, and the file holds every byte', async () => {
    const shared = Buffer.alloc(64 * 1024, 9);
    const chunks = [own(1), own(2), shared.subarray(0, 1000), own(3)];
    const expected = Buffer.concat(chunks); // a copy, taken before anything is written
    const path = join(dir.path, 'freed.bin');
    await pipeline(Readable.from(chunks), new DurableFileWriter(path, { freeWritten: true }));
    expect(sha256(await readFile(path))).toBe(sha256(expected));
    expect(chunks.map((c) => c.length)).toEqual(canFree ? [0, 0, 1000, 0] : [65536, 65536, 1000, 65536]);
    expect(shared.length).toBe(64 * 1024);
    expect(shared.every((b) => b === 9)).toBe(true);
  });

  it('leaves the chunks alone without it', async () => {
    const chunks = [own(1), own(2)];
    await pipeline(Readable.from(chunks), new DurableFileWriter(join(dir.path, 'kept.bin')));
    expect(chunks.map((c) => c.length)).toEqual([65536, 65536]);
    expect(chunks[1]!.every((b) => b === 2)).toBe(true);
  });
});
