// The plain file writer under URL inputs and staged inputs: every byte, many chunks per write
// (the speed over createWriteStream's 16 KB), no fsync, and the open flags it is given (r+ at an
// offset: the parts of resumable uploads).
import { jest } from '@jest/globals';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { tempDir } from '@media/testkit';
import { FileWriter } from '../src/file-writer.js';
import { fileHandlePrototype, randomData, sha256, streamOf, type FileHandleMethods } from './helpers.js';

let dir: { path: string; remove: () => Promise<void> };
let fileHandleProto: FileHandleMethods;

beforeAll(async () => {
  dir = await tempDir('blobstore-file-writer-');
  fileHandleProto = await fileHandlePrototype(dir.path);
});
afterEach(() => jest.restoreAllMocks());
afterAll(async () => {
  await dir.remove();
});

it('writes every byte, 16 KB chunks batched into few writes, and never syncs', async () => {
  const writev = jest.spyOn(fileHandleProto, 'writev');
  const syncs = [jest.spyOn(fileHandleProto, 'datasync'), jest.spyOn(fileHandleProto, 'sync')];
  const data = randomData(64 * 16 * 1024 + 5);
  const chunks = Math.ceil(data.length / 16384);
  const path = join(dir.path, 'plain.bin');
  await pipeline(streamOf(data, 16384), new FileWriter(path));
  expect(sha256(await readFile(path))).toBe(sha256(data));
  // 256 KB buffered: up to 16 chunks a call (at 16 KB it would be one call per chunk).
  expect(writev.mock.calls.length).toBeLessThan(chunks / 4);
  for (const s of syncs) expect(s).not.toHaveBeenCalled();
});

it('refuses an existing file by default; with flags "w" replaces it', async () => {
  const path = join(dir.path, 'exists.bin');
  await writeFile(path, 'old contents, longer than the new');
  await expect(pipeline(Readable.from([Buffer.from('new')]), new FileWriter(path))).rejects.toMatchObject({ code: 'EEXIST' });
  expect(await readFile(path, 'utf8')).toBe('old contents, longer than the new');
  await pipeline(Readable.from([Buffer.from('new')]), new FileWriter(path, { flags: 'w' }));
  expect(await readFile(path, 'utf8')).toBe('new');
});

it('with flags "r+" and start writes into an existing file from that offset, keeping what is before', async () => {
  const path = join(dir.path, 'part.bin');
  const head = randomData(100_000);
  await writeFile(path, head);
  const tail = randomData(40 * 16 * 1024 + 3);
  await pipeline(streamOf(tail, 16384), new FileWriter(path, { flags: 'r+', start: head.length }));
  expect(sha256(await readFile(path))).toBe(sha256(Buffer.concat([head, tail])));
});

it('with flags "r+" refuses a file that does not exist', async () => {
  const path = join(dir.path, 'no-part.bin');
  await expect(pipeline(Readable.from([Buffer.from('x')]), new FileWriter(path, { flags: 'r+', start: 0 }))).rejects.toMatchObject({
    code: 'ENOENT',
  });
});
