// Local disk: the parts of a resumable upload in a FileStore (PartFileStore: a part file, on disk
// before each PATCH is answered, and its JSON record) under DATA_DIR/storage/tus, so they survive
// a restart; the completed part is hard-linked into
// the blob the plain PUT writes (the parts directory is on the blobs' filesystem).
import { readdir } from 'node:fs/promises';
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

    remove: (id) => datastore.remove(id).catch(() => undefined),

    async *list() {
      const names = await readdir(partsDir).catch(() => [] as string[]);
      for (const name of names) if (name.endsWith('.json')) yield name.slice(0, -'.json'.length);
    },
  };
}
