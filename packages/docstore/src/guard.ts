// Every database call through one guard (a circuit breaker: platform's dependencyGuard), applied
// once where a service opens its store instead of at each call site; and which errors mean "the
// database cannot be reached" rather than an answer (duplicate key, validation...).
import type { Collection, CollectionOptions, Doc, DocStore } from './types.js';

/** Runs one operation; may throw its own error instead (e.g. 503 while the breaker is open). */
export interface OperationGuard {
  run<T>(call: () => Promise<T>): Promise<T>;
}

/** The same store with every collection operation and ping() run through `guard`. */
export function guardDocStore(store: DocStore, guard: OperationGuard): DocStore {
  const collections = new Map<string, Collection<Doc>>();
  return {
    collection<T extends Doc>(name: string, options?: CollectionOptions): Collection<T> {
      let guarded = collections.get(name);
      if (!guarded) {
        guarded = guardCollection(store.collection<Doc>(name, options), guard);
        collections.set(name, guarded);
      }
      return guarded as unknown as Collection<T>;
    },
    ping: () => guard.run(() => store.ping()),
    close: () => store.close(),
  };
}

function guardCollection<T extends Doc>(c: Collection<T>, guard: OperationGuard): Collection<T> {
  return {
    get name() {
      return c.name;
    },
    createIndex: (spec) => guard.run(() => c.createIndex(spec)),
    insertOne: (doc) => guard.run(() => c.insertOne(doc)),
    findOne: (filter, options) => guard.run(() => c.findOne(filter, options)),
    find: (filter, options) => guard.run(() => c.find(filter, options)),
    countDocuments: (filter) => guard.run(() => c.countDocuments(filter)),
    findOneAndUpdate: (filter, update, options) => guard.run(() => c.findOneAndUpdate(filter, update, options)),
    updateMany: (filter, update) => guard.run(() => c.updateMany(filter, update)),
    deleteOne: (filter) => guard.run(() => c.deleteOne(filter)),
    deleteMany: (filter) => guard.run(() => c.deleteMany(filter)),
  };
}

let mongoOutage: ((err: unknown) => boolean) | undefined;

/** Set by openMongoDocStore: MongoDB's verdicts load with its driver, which is loaded only then. */
export function useMongoOutageCheck(check: (err: unknown) => boolean): void {
  mongoOutage = check;
}

/**
 * True when MongoDB could not be reached or is failing over (see mongo/outage.ts). Before a
 * MongoDB store has been opened there is no MongoDB error to classify; the embedded store has
 * no outages.
 */
export function isDocStoreOutage(err: unknown): boolean {
  return mongoOutage?.(err) ?? false;
}
