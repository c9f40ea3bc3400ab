// The part files of resumable uploads (PartFileStore): a PATCH body is appended at its offset,
// every byte, and the new size is what the upload reports; a body that breaks off answers tus's
// write error and keeps the bytes that arrived, which a HEAD then reports to resume from.
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { ERRORS, Upload } from '@tus/server';
import { PartFileStore } from '../src/adapters/tus-part-store.js';

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tus-part-store-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** `data` in pieces of `size` bytes, as a request body arrives. */
const pieces = (data: Buffer, size: number) =>
  Readable.from(Array.from({ length: Math.ceil(data.length / size) }, (_, i) => data.subarray(i * size, (i + 1) * size)));

test('PATCH bodies are appended at their offsets, every byte, and the upload reports the new size', async () => {
  const store = new PartFileStore(dir);
  const data = randomBytes(3 * 1024 * 1024 + 7);
  await store.create(new Upload({ id: 'part-a', size: data.length, offset: 0 }));
  const first = 1024 * 1024 + 3;
  expect(await store.write(pieces(data.subarray(0, first), 65536), 'part-a', 0)).toBe(first);
  expect(await store.write(pieces(data.subarray(first), 16384), 'part-a', first)).toBe(data.length);
  expect((await store.getUpload('part-a')).offset).toBe(data.length);
  expect(sha(await readFile(join(dir, 'part-a')))).toBe(sha(data));
});

test('a body that breaks off answers the write error and keeps what arrived, to resume from', async () => {
  const store = new PartFileStore(dir);
  const data = randomBytes(2 * 1024 * 1024);
  await store.create(new Upload({ id: 'part-b', size: 4 * data.length, offset: 0 }));
  const broken = new Readable({ read() {} });
  broken.push(data);
  setImmediate(() => broken.destroy(new Error('connection reset')));
  await expect(store.write(broken, 'part-b', 0)).rejects.toBe(ERRORS.FILE_WRITE_ERROR);
  const kept = (await store.getUpload('part-b')).offset;
  expect(kept).toBeLessThanOrEqual(data.length);
  const part = await readFile(join(dir, 'part-b'));
  expect(part.length).toBe(kept);
  expect(sha(part)).toBe(sha(data.subarray(0, kept)));
  // The client resumes from the reported offset: the part ends whole.
  const rest = Buffer.concat([data.subarray(kept), randomBytes(3 * data.length)]);
  expect(await store.write(pieces(rest, 65536), 'part-b', kept)).toBe(4 * data.length);
  expect(sha(await readFile(join(dir, 'part-b')))).toBe(sha(Buffer.concat([data.subarray(0, kept), rest])));
});
