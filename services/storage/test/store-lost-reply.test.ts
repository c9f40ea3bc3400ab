// A job output whose record insert was applied but whose reply was lost (MongoDB paused past the
// driver's timeout: found by npm run chaos as a listed file whose download was 404) keeps its
// bytes: the store fails, but the file it left listed is readable. An insert that surely failed
// leaves no blob behind.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { createLocalDiskBlobStore } from '@media/blobstore';
import { openEmbeddedDocStore, type DocStore } from '@media/docstore';
import { Errors } from '@media/platform';
import { openStorageRepository } from '../src/adapters/repository.js';
import type { StorageRepository } from '../src/domain/ports.js';
import { createStorage } from '../src/domain/storage.js';

const accountId = 'acc_lost';
let dir: string;
let store: DocStore;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'storage-lost-reply-'));
  store = await openEmbeddedDocStore({ dataDir: dir, database: 'storage' });
});
afterEach(async () => {
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

async function setUp(insert: (repo: StorageRepository) => StorageRepository['insertFileIfFree']) {
  const real = await openStorageRepository(store);
  const repo: StorageRepository = Object.assign(Object.create(real) as StorageRepository, { insertFileIfFree: insert(real) });
  const blobs = createLocalDiskBlobStore({ root: join(dir, 'blobs'), publicBaseUrl: 'http://127.0.0.1:1', signingSecret: 's'.repeat(32) });
  const storage = createStorage({ repo, blobs });
  const directory = await storage.createDirectory(accountId, 3600);
  return { real, blobs, storage, dirId: directory._id };
}

const body = () => ({ stream: Readable.from([Buffer.from('frame bytes')]) });

test('an insert applied whose reply was lost: the store fails, the listed file keeps its bytes', async () => {
  const { real, blobs, storage, dirId } = await setUp((r) => async (doc) => {
    await r.insertFileIfFree(doc);
    throw Errors.dependencyDown();
  });
  await expect(storage.storeFile(accountId, dirId, 'out.png', body(), true)).rejects.toThrow('A backing service is unavailable');
  const listed = await real.fileByName(dirId, 'out.png');
  expect(listed).not.toBeNull();
  const chunks: Buffer[] = [];
  for await (const c of await blobs.get(listed!.blobKey)) chunks.push(c as Buffer);
  expect(Buffer.concat(chunks).toString()).toBe('frame bytes');
});

test('an insert that surely failed leaves no blob', async () => {
  const keys: string[] = [];
  const { blobs, storage, dirId } = await setUp(() => async (doc) => {
    keys.push(doc.blobKey);
    throw Errors.dependencyDown();
  });
  await expect(storage.storeFile(accountId, dirId, 'out.png', body(), true)).rejects.toThrow('A backing service is unavailable');
  expect(keys).toHaveLength(1);
  expect(await blobs.head(keys[0]!)).toBeNull();
});
