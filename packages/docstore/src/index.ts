// @media/docstore: the collection interface, its two engines, and the switch between them.
import type { DocStore, OpenDocStoreOptions } from './types.js';
import { openEmbeddedDocStore } from './embedded/store.js';
import { useMongoOutageCheck } from './guard.js';
import type { MongoDocStoreOptions } from './mongo/store.js';

export * from './types.js';
export { openEmbeddedDocStore, type EmbeddedDocStoreOptions } from './embedded/store.js';
export type { MongoDocStoreOptions } from './mongo/store.js';
export { guardDocStore, isDocStoreOutage, type OperationGuard } from './guard.js';

/**
 * The MongoDB engine. Its driver is loaded on first use, so that an embedded start does not pay
 * its memory and start-up time.
 */
export async function openMongoDocStore(options: MongoDocStoreOptions): Promise<DocStore> {
  const [engine, outage] = await Promise.all([import('./mongo/store.js'), import('./mongo/outage.js')]);
  useMongoOutageCheck(outage.isMongoOutage);
  return engine.openMongoDocStore(options);
}

/** MongoDB when `mongoUrl` is set, else the embedded engine under `<dataDir>/<database>/`. */
export async function openDocStore(options: OpenDocStoreOptions): Promise<DocStore> {
  if (options.mongoUrl) return openMongoDocStore({ url: options.mongoUrl, database: options.database });
  return openEmbeddedDocStore({ dataDir: options.dataDir, database: options.database });
}
