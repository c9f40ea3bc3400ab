// One embedded collection: documents in a Map by _id, evaluated with mingo. Every operation runs
// synchronously on the in-memory state (so findOneAndUpdate is atomic in a single process) and
// is then handed to the journal, if the collection is persistent.
import { Query } from 'mingo';
import { ObjectId } from 'bson';
import {
  DuplicateKeyError,
  type Collection,
  type Doc,
  type Filter,
  type FindOneAndUpdateOptions,
  type FindOptions,
  type IndexSpec,
  type Sort,
  type Update,
} from '../types.js';
import { checkUnique, normalizeIndex, sameIndex, UniqueIndex, type NormalizedIndex } from './indexes.js';
import type { CollectionState, Journal } from './journal.js';
import { collectValues } from './paths.js';
import { applyUpdate, buildUpsert, validateUpdate } from './update.js';
import { cloneValue, describe, keyPart, QUERY_OPTIONS } from './values.js';

const newId = (): string => new ObjectId().toHexString();

/** Filter values that can be looked up in a unique index directly. */
function isScalarKey(v: unknown): boolean {
  return typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' || v instanceof Date;
}

export class EmbeddedCollection<T extends Doc> implements Collection<T> {
  private readonly docs = new Map<string, Doc>();
  private readonly indexes = new Map<string, NormalizedIndex>();
  private unique: UniqueIndex[] = [];
  /** Set by the store for persistent collections. */
  journal: Journal | null = null;

  constructor(
    readonly name: string,
    private readonly assertOpen: () => void,
  ) {}

  /** Fills the collection from persisted state (before any journal is attached). */
  restore(state: CollectionState): void {
    for (const doc of state.docs) this.docs.set(doc._id, doc);
    for (const spec of state.indexes) this.addIndex(spec);
  }

  count(): number {
    return this.docs.size;
  }

  state(): CollectionState {
    return { docs: [...this.docs.values()], indexes: [...this.indexes.values()] };
  }

  async createIndex(spec: IndexSpec): Promise<void> {
    this.assertOpen();
    const ix = normalizeIndex(spec);
    const existing = this.indexes.get(ix.name) ?? [...this.indexes.values()].find((e) => describe(e.keys) === describe(ix.keys));
    if (existing) {
      if (sameIndex(existing, ix)) return;
      throw new Error(`index ${ix.name} conflicts with existing index ${describe(existing)}`);
    }
    this.addIndex(ix);
    this.journal?.index(ix);
  }

  private addIndex(ix: NormalizedIndex): void {
    if (ix.unique) {
      const index = new UniqueIndex(ix);
      checkUnique([index], [...this.docs.values()].map((after) => ({ before: null, after })));
      for (const doc of this.docs.values()) index.add(doc);
      this.unique.push(index);
    }
    this.indexes.set(ix.name, ix);
  }

  async insertOne(doc: T): Promise<void> {
    this.assertOpen();
    if (typeof doc._id !== 'string') throw new TypeError('documents need a string _id');
    const copy = cloneValue(doc) as Doc;
    if (this.docs.has(copy._id)) throw new DuplicateKeyError(`E11000 duplicate key error index: _id_ dup key: { _id: ${describe(copy._id)} }`);
    checkUnique(this.unique, [{ before: null, after: copy }]);
    this.write(null, copy);
  }

  async findOne(filter: Filter, options?: { sort?: Sort }): Promise<T | null> {
    this.assertOpen();
    const [doc] = this.select(filter, { ...options, limit: 1 });
    return doc ? (cloneValue(doc) as T) : null;
  }

  async find(filter: Filter, options?: FindOptions): Promise<T[]> {
    this.assertOpen();
    return this.select(filter, options).map((d) => cloneValue(d) as T);
  }

  async countDocuments(filter: Filter): Promise<number> {
    this.assertOpen();
    return Object.keys(filter).length === 0 ? this.docs.size : this.matching(filter).length;
  }

  async findOneAndUpdate(filter: Filter, update: Update, options: FindOneAndUpdateOptions = {}): Promise<T | null> {
    this.assertOpen();
    validateUpdate(update);
    const [before] = this.select(filter, { limit: 1, ...(options.sort ? { sort: options.sort } : {}) });
    if (before) {
      const after = cloneValue(before);
      applyUpdate(after, update, false);
      checkUnique(this.unique, [{ before, after }]);
      this.write(before, after);
      return cloneValue(options.returnDocument === 'before' ? before : after) as T;
    }
    if (!options.upsert) return null;
    const doc = buildUpsert(filter, update, newId);
    if (typeof doc._id !== 'string') throw new TypeError('documents need a string _id');
    if (this.docs.has(doc._id)) throw new DuplicateKeyError(`E11000 duplicate key error index: _id_ dup key: { _id: ${describe(doc._id)} }`);
    checkUnique(this.unique, [{ before: null, after: doc }]);
    this.write(null, doc);
    return options.returnDocument === 'before' ? null : (cloneValue(doc) as T);
  }

  async updateMany(filter: Filter, update: Update): Promise<number> {
    this.assertOpen();
    validateUpdate(update);
    const changes = this.matching(filter).map((before) => {
      const after = cloneValue(before);
      applyUpdate(after, update, false);
      return { before, after };
    });
    // All or nothing: a unique violation anywhere leaves every document as it was.
    checkUnique(this.unique, changes);
    for (const { before, after } of changes) this.write(before, after);
    return changes.length;
  }

  async deleteOne(filter: Filter): Promise<boolean> {
    this.assertOpen();
    const [doc] = this.select(filter, { limit: 1 });
    if (!doc) return false;
    this.remove(doc);
    return true;
  }

  async deleteMany(filter: Filter): Promise<number> {
    this.assertOpen();
    const docs = this.matching(filter);
    for (const doc of docs) this.remove(doc);
    return docs.length;
  }

  /** Removes documents whose TTL field has passed; returns how many. */
  expire(now: number): number {
    let removed = 0;
    for (const ix of this.indexes.values()) {
      if (ix.expireAfterSeconds === undefined) continue;
      const field = Object.keys(ix.keys)[0]!;
      const limit = now - ix.expireAfterSeconds * 1000;
      const expired = [...this.docs.values()].filter((doc) => {
        // MongoDB uses the earliest Date when the field holds an array; non-Dates never expire.
        const times = collectValues(doc, field).filter((v): v is Date => v instanceof Date).map((d) => d.getTime());
        return times.length > 0 && Math.min(...times) <= limit;
      });
      for (const doc of expired) this.remove(doc);
      removed += expired.length;
    }
    return removed;
  }

  private write(before: Doc | null, after: Doc): void {
    for (const index of this.unique) {
      if (before) index.remove(before);
      index.add(after);
    }
    this.docs.set(after._id, after);
    this.journal?.put(after);
  }

  private remove(doc: Doc): void {
    for (const index of this.unique) index.remove(doc);
    this.docs.delete(doc._id);
    this.journal?.del(doc._id);
  }

  /** Documents that can match: one by _id or a unique-index key, else all. */
  private candidates(filter: Filter): Iterable<Doc> {
    const id = filter._id;
    if (typeof id === 'string') {
      const doc = this.docs.get(id);
      return doc ? [doc] : [];
    }
    for (const index of this.unique) {
      if (!index.fields.every((f) => isScalarKey(filter[f]))) continue;
      const owner = index.ownerOf(index.fields.map((f) => keyPart(filter[f])).join('|'));
      const doc = owner === undefined ? undefined : this.docs.get(owner);
      return doc ? [doc] : [];
    }
    return this.docs.values();
  }

  /** Matching documents in natural (insertion) order, stopping after `max`. */
  private matching(filter: Filter, max = Infinity): Doc[] {
    const all = this.candidates(filter);
    const query = Object.keys(filter).length === 0 ? null : new Query(filter, QUERY_OPTIONS);
    const out: Doc[] = [];
    for (const doc of all) {
      if (out.length >= max) break;
      if (!query || query.test(doc)) out.push(doc);
    }
    return out;
  }

  private select(filter: Filter, options: FindOptions = {}): Doc[] {
    const sorted = options.sort !== undefined && Object.keys(options.sort).length > 0;
    const skip = options.skip ?? 0;
    const limit = options.limit && options.limit > 0 ? options.limit : undefined;
    let docs = this.matching(filter, sorted || limit === undefined ? Infinity : skip + limit);
    if (sorted) {
      docs = new Query({}, QUERY_OPTIONS).find<Doc>(docs).sort(options.sort!).all();
    }
    return docs.slice(skip, limit === undefined ? undefined : skip + limit);
  }
}
