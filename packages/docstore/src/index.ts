// @media/docstore: the collection interface, its two engines, and the switch between them.
import type { DocStore, OpenDocStoreOptions } from './types.js';
import { openEmbeddedDocStore } from './embedded/store.js';
import { openMongoDocStore } from './mongo/store.js';

export * from './types.js';
export { openEmbeddedDocStore, type EmbeddedDocStoreOptions } from './embedded/store.js';
export { openMongoDocStore, type MongoDocStoreOptions } from './mongo/store.js';
export { guardDocStore, isDocStoreOutage, type OperationGuard } from './guard.js';

/** MongoDB when `mongoUrl` is set, else the embedded engine under `<dataDir>/<database>/`. */
export async function openDocStore(options: OpenDocStoreOptions): Promise<DocStore> {
  if (options.mongoUrl) return openMongoDocStore({ url: options.mongoUrl, database: options.database });
  return openEmbeddedDocStore({ dataDir: options.dataDir, database: options.database });
}
