// Local disk: the parts of a resumable upload in a FileStore (PartFileStore: a part file, on disk
// before each PATCH is answered, and its JSON record) under DATA_DIR/storage/tus, so they survive
// a restart; the completed part is hard-linked into
// the blob the plain PUT writes (the parts directory is on the blobs' filesystem).
import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { openLocalSource, type LocalDiskBlobStore } from '@media/blobstore';
import { MAX_FILE_BYTES } from '../domain/rules.js';
import { PartFileStore } from './tus-part-store.js';
import type { TusParts } from './tus-parts.js';

export function diskTusParts(blobs: LocalDiskBlobStore, partsDir: string): TusParts {
  const datastore = new PartFileStore(partsDir);
  return {
    datastore,
    // FileStore names its files by id: the key made one path segment.
    idOf: (key) => Buffer.from(key).toString('base64url'),
    keyOf: (id) => Buffer.from(id, 'base64url').toString(),

    async moveToBlob(upload, key) {
      const source = await openLocalSource(partsDir, join(partsDir, upload.id));
      try {
        return await blobs.putFile(key, source, { maxBytes: MAX_FILE_BYTES });
      } finally {
        await source.handle.close();
      }
    },

    // Each of the two files on its own: a crash between FileStore's writes (or its removes) can
    // leave either without the other, and FileStore's remove stops at a missing part file.
    async remove(id) {
      const part = join(partsDir, id);
      await Promise.all([rm(part, { force: true }), rm(`${part}.json`, { force: true })]);
    },

    async *list() {
      const names = await readdir(partsDir).catch(() => [] as string[]);
      yield* new Set(names.map((name) => name.replace(/\.json$/, '')));
    },
  };
}
