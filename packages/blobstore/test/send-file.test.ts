// sendFileRange: exact bytes for whole files and ranges though its two buffers are reused, no
// reuse before the receiver took a chunk, and a clear failure (never a hang) when the file is
// short or the receiver goes away.
import { open, writeFile, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { tempDir } from '@media/testkit';
import { sendFileRange } from '../src/send-file.js';
import { randomData } from './helpers.js';

let dir: { path: string; remove: () => Promise<void> };
let handle: FileHandle;
const data = randomData(1_000_003);

beforeAll(async () => {
  dir = await tempDir('blobstore-send-');
  await writeFile(join(dir.path, 'f.bin'), data);
  handle = await open(join(dir.path, 'f.bin'), 'r');
});
afterAll(async () => {
  await handle.close();
  await dir.remove();
});

/** A receiver that takes each chunk only later (as a socket hands it to the kernel later). */
function slowSink(): { sink: Writable; received: () => Buffer } {
  const chunks: Buffer[] = [];
  const sink = new Writable({
    highWaterMark: 1,
    write(chunk: Buffer, _enc, cb) {
      setTimeout(() => {
        chunks.push(Buffer.from(chunk)); // copied only now: a reused buffer would show here
        cb();
      }, 1);
    },
  });
  return { sink, received: () => Buffer.concat(chunks) };
}

it.each([
  ['the whole file', 0, data.length - 1],
  ['a range inside one chunk', 10, 20],
  ['a range over many chunks', 12_345, 987_654],
  ['the last byte', data.length - 1, data.length - 1],
])('sends %s byte for byte', async (_name, start, end) => {
  const { sink, received } = slowSink();
  await sendFileRange(handle, sink, start, end, 64 * 1024);
  expect(sink.writableFinished).toBe(true);
  expect(received().equals(data.subarray(start, end + 1))).toBe(true);
});

it('fails when the file is shorter than the range', async () => {
  const { sink } = slowSink();
  await expect(sendFileRange(handle, sink, data.length - 10, data.length + 100, 64 * 1024)).rejects.toThrow('shorter than the range');
});

it('fails, without hanging, when the receiver goes away midway', async () => {
  let writes = 0;
  const sink = new Writable({
    write(_chunk, _enc, cb) {
      if (++writes === 3) return sink.destroy(); // never calls back, as a closed socket may not
      cb();
    },
  });
  await expect(sendFileRange(handle, sink, 0, data.length - 1, 64 * 1024)).rejects.toThrow(/went away|destroyed/);
  expect(writes).toBe(3);
});
