// The RPCs Jobs and Probe use: resolve, stream out, store in, 1-hour result URLs.
import { createHash } from 'node:crypto';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { create } from '@bufbuild/protobuf';
import { StorageService, StoreFileRequestSchema } from '@media/proto/media/storage/v1/storage_pb.js';
import { connectEventBus, type EventBus } from '@media/eventbus';
import { createServiceClient, loadConfig, type ServiceClient } from '@media/platform';
import { startStorage, storageConfigSpec, type RunningStorage } from '../src/index.js';
import { startFakeAuth } from './fake-auth.js';

let dataDir: string;
let bus: EventBus;
let auth: Awaited<ReturnType<typeof startFakeAuth>>;
let storage: RunningStorage;
let rpc: ServiceClient<typeof StorageService>;
const accountId = 'acc_test';

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'storage-rpc-'));
  bus = await connectEventBus({});
  auth = await startFakeAuth();
  const config = loadConfig(storageConfigSpec, {
    DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    STORAGE_PORT: '0',
    STORAGE_HTTP_PORT: '0',
    STORAGE_HTTP_HOST: '127.0.0.1',
    AUTH_URL: auth.url,
  });
  storage = await startStorage(config, { bus });
  rpc = createServiceClient(StorageService, storage.url);
});
afterAll(async () => {
  rpc?.close();
  await storage?.close();
  await bus?.close();
  await auth?.close();
  await rm(dataDir, { recursive: true, force: true });
});

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

async function uploaded(name: string, bytes: Buffer, dirId?: string) {
  const { file, upload } = await rpc.client.registerFile({ accountId, fileName: name, dirId });
  const res = await fetch(upload!.url, { method: 'PUT', headers: upload!.headers, body: bytes });
  expect(res.status).toBe(200);
  return file!;
}

async function* storeRequests(dirId: string, fileName: string, parts: Buffer[], overwrite = false) {
  yield create(StoreFileRequestSchema, {
    part: { case: 'header', value: { accountId, dirId, fileName, size: 0n, overwrite, downloadExpiresInSeconds: 3600 } },
  });
  for (const p of parts) yield create(StoreFileRequestSchema, { part: { case: 'chunk', value: p } });
}

test('resolve gives size, type, blob key and (local disk) the path; read streams the bytes', async () => {
  const bytes = Buffer.alloc(300_000, 7);
  const file = await uploaded('in.bin', bytes);
  const resolved = await rpc.client.resolveFile({ file: { accountId, dirId: file.dirId, fileName: 'in.bin' } });
  expect(resolved.fileInfo).toMatchObject({ filePath: `${file.dirId}/in.bin`, fileSize: 300_000n });
  expect(resolved.blobKey).toContain(file.dirId);
  expect(resolved.localPath).toBeTruthy();
  const chunks: Buffer[] = [];
  for await (const m of rpc.client.readFile({ file: { accountId, dirId: file.dirId, fileName: 'in.bin' } }))
    chunks.push(Buffer.from(m.chunk));
  expect(sha(Buffer.concat(chunks))).toBe(sha(bytes));
  await expect(rpc.client.resolveFile({ file: { accountId: 'acc_other', dirId: file.dirId, fileName: 'in.bin' } })).rejects.toMatchObject({
    rawMessage: 'Directory not found',
  });
  await expect(rpc.client.resolveFile({ file: { accountId, dirId: file.dirId, fileName: 'nope' } })).rejects.toMatchObject({
    rawMessage: 'File not found in directory',
  });
});

test('store writes an output into the directory with a 1-hour download URL; overwrite is explicit', async () => {
  const dir = (await rpc.client.createDirectory({ accountId })).directory!.id;
  const parts = [Buffer.from('hello '), Buffer.from('world')];
  const stored = await rpc.client.storeFile(storeRequests(dir, 'out.txt', parts));
  expect(stored.file).toMatchObject({ dirId: dir, fileName: 'out.txt', uploaded: true });
  expect(stored.download).toMatchObject({ method: 'GET', expiresInSeconds: 3600, fileSize: 11n });
  expect(await (await fetch(stored.download!.url)).text()).toBe('hello world');
  await expect(rpc.client.storeFile(storeRequests(dir, 'out.txt', [Buffer.from('x')]))).rejects.toMatchObject({
    rawMessage: 'File name already exists in directory',
  });
  const replaced = await rpc.client.storeFile(storeRequests(dir, 'out.txt', [Buffer.from('new')], true));
  expect(await (await fetch(replaced.download!.url)).text()).toBe('new');
  const listed = await rpc.client.listFiles({ accountId, dirId: dir });
  expect(listed.files.map((f) => f.fileName)).toEqual(['out.txt']);
  const dl = await rpc.client.getDownload({ file: { accountId, dirId: dir, fileName: 'out.txt' }, expiresInSeconds: 3600 });
  expect(dl.download!.expiresInSeconds).toBe(3600);
});

test('stores of one name racing with overwrite all succeed: one file remains, the last stored, and no blob is left behind', async () => {
  // Two async jobs writing out.jpg into one directory at once: each replaces the other's file.
  const dir = (await rpc.client.createDirectory({ accountId })).directory!.id;
  const contents = Array.from({ length: 12 }, (_, i) => Buffer.from(`version ${i}`));
  const stored = await Promise.all(contents.map((c) => rpc.client.storeFile(storeRequests(dir, 'out.txt', [c], true))));
  expect(stored).toHaveLength(12);
  const listed = await rpc.client.listFiles({ accountId, dirId: dir });
  expect(listed.files.map((f) => f.fileName)).toEqual(['out.txt']);
  const dl = await rpc.client.getDownload({ file: { accountId, dirId: dir, fileName: 'out.txt' }, expiresInSeconds: 60 });
  const body = await (await fetch(dl.download!.url)).text();
  expect(contents.map(String)).toContain(body);
  // Only the remaining file's blob is on disk, in the directory's folder of blobs.
  const { localPath } = await rpc.client.resolveFile({ file: { accountId, dirId: dir, fileName: 'out.txt' } });
  expect(await readdir(dirname(localPath!))).toEqual([basename(localPath!)]);
});

test('health reports SERVING', async () => {
  const { Health } = await import('@media/proto/grpc/health/v1/health_pb.js');
  const health = createServiceClient(Health, storage.url);
  expect((await health.client.check({ service: StorageService.typeName })).status).toBe(1);
  health.close();
});

test('a media probe verdict is kept with the blob it was taken from, and goes with it', async () => {
  const file = await uploaded('clip.bin', Buffer.alloc(1000, 1));
  const ref = { accountId, dirId: file.dirId, fileName: 'clip.bin' };
  const { blobKey, mediaProbe } = await rpc.client.resolveFile({ file: ref });
  expect(mediaProbe).toBeUndefined();
  // A verdict for another blob (a replaced file) is not kept.
  expect((await rpc.client.recordMediaProbe({ file: ref, blobKey: `${blobKey}x`, mediaProbe: '{"v":1}' })).recorded).toBe(false);
  expect((await rpc.client.resolveFile({ file: ref })).mediaProbe).toBeUndefined();
  expect((await rpc.client.recordMediaProbe({ file: ref, blobKey, mediaProbe: '{"v":1,"format":"mov"}' })).recorded).toBe(true);
  expect((await rpc.client.resolveFile({ file: ref })).mediaProbe).toBe('{"v":1,"format":"mov"}');
  // Another account cannot write one.
  await expect(rpc.client.recordMediaProbe({ file: { ...ref, accountId: 'acc_other' }, blobKey, mediaProbe: '{}' })).rejects.toMatchObject({
    rawMessage: 'Directory not found',
  });
  // Replaced by a stored output of the same name: the new blob starts without a verdict.
  await rpc.client.storeFile(storeRequests(file.dirId, 'clip.bin', [Buffer.from('new bytes')], true));
  expect((await rpc.client.resolveFile({ file: ref })).mediaProbe).toBeUndefined();
});
