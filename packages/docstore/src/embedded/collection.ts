// One embedded collection: documents in a Map by _id, evaluated with mingo. Every operation runs
// synchronously on the in-memory state (so findOneAndUpdate is atomic in a single process) and
// is then handed to the journal, if the collection is persistent; a write resolves once the
// journal has it in its file.
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
import { bestLookup, KeyIndex, type Placed } from './keyindex.js';
import { topK } from './topk.js';
import type { CollectionState, Journal } from './journal.js';
import { collectValues } from './paths.js';
import { applyUpdate, buildUpsert, validateUpdate } from './update.js';
import { compileMatcher, compileQuery } from './matcher.js';
import { cloneValue, describe, isPlainObject, keyPart } from './values.js';

const newId = (): string => new ObjectId().toHexString();

/** Filter values that can be looked up in a unique index directly. */
function isScalarKey(v: unknown): boolean {
  return typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' || v instanceof Date;
}

const MAX_EXPIRED_PER_SWEEP = 1000;

export class EmbeddedCollection<T extends Doc> implements Collection<T> {
  private readonly docs = new Map<string, Doc>();
  /** Natural-order position of each document (insertion order; kept when it is replaced). */
  private readonly ords = new Map<string, number>();
  private nextOrd = 0;
  private readonly indexes = new Map<string, NormalizedIndex>();
  private unique: UniqueIndex[] = [];
  /** Lookups on the leading fields of every index (all of them, or all but the last if unique). */
  private keyed: KeyIndex[] = [];
  /** Set by the store for persistent collections. */
  journal: Journal | null = null;
  /**
   * No document expires before this instant (ms), so the once-a-second TTL sweep skips the scan
   * until then; writes lower it. -Infinity: unknown, scan.
   */
  private ttlCheckAfter = -Infinity;

  constructor(
    readonly name: string,
    private readonly assertOpen: () => void,
  ) {}

  /** Fills the collection from persisted state (before any journal is attached). */
  restore(state: CollectionState): void {
    for (const doc of state.docs) {
      this.docs.set(doc._id, doc);
      this.ords.set(doc._id, this.nextOrd++);
    }
    for (const spec of state.indexes) this.addIndex(spec);
    this.ttlCheckAfter = -Infinity;
  }

  /** Starts over from persisted state (the journal's, after a write to it failed). */
  reset(state: CollectionState): void {
    this.docs.clear();
    this.ords.clear();
    this.nextOrd = 0;
    this.indexes.clear();
    this.unique = [];
    this.keyed = [];
    this.restore(state);
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
    await this.journal?.index(ix);
  }

  private addIndex(ix: NormalizedIndex): void {
    if (ix.expireAfterSeconds !== undefined) this.ttlCheckAfter = -Infinity;
    if (ix.unique) {
      const index = new UniqueIndex(ix);
      checkUnique(
        [index],
        [...this.docs.values()].map((after) => ({ before: null, after })),
      );
      for (const doc of this.docs.values()) index.add(doc);
      this.unique.push(index);
    }
    const fields = KeyIndex.usable(Object.keys(ix.keys)).slice(0, ix.unique ? Object.keys(ix.keys).length - 1 : undefined);
    if (fields.length > 0) this.keyed.push(new KeyIndex(ix.name, fields, () => this.placed()));
    this.indexes.set(ix.name, ix);
  }

  private *placed(): Iterable<Placed> {
    for (const [id, doc] of this.docs) yield { doc, ord: this.ords.get(id)! };
  }

  async insertOne(doc: T): Promise<void> {
    this.assertOpen();
    if (typeof doc._id !== 'string') throw new TypeError('documents need a string _id');
    const copy = cloneValue(doc) as Doc;
    if (this.docs.has(copy._id))
      throw new DuplicateKeyError(`E11000 duplicate key error index: _id_ dup key: { _id: ${describe(copy._id)} }`);
    checkUnique(this.unique, [{ before: null, after: copy }]);
    await this.write(null, copy);
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
      const written = this.write(before, after);
      const answer = cloneValue(options.returnDocument === 'before' ? before : after) as T;
      await written;
      return answer;
    }
    if (!options.upsert) return null;
    const doc = buildUpsert(filter, update, newId);
    if (typeof doc._id !== 'string') throw new TypeError('documents need a string _id');
    if (this.docs.has(doc._id))
      throw new DuplicateKeyError(`E11000 duplicate key error index: _id_ dup key: { _id: ${describe(doc._id)} }`);
    checkUnique(this.unique, [{ before: null, after: doc }]);
    const written = this.write(null, doc);
    const answer = options.returnDocument === 'before' ? null : (cloneValue(doc) as T);
    await written;
    return answer;
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
    // Batches are written in order: the last write's is the last one to wait for.
    let written: Promise<void> | undefined;
    for (const { before, after } of changes) written = this.write(before, after);
    await written;
    return changes.length;
  }

  async deleteOne(filter: Filter): Promise<boolean> {
    this.assertOpen();
    const [doc] = this.select(filter, { limit: 1 });
    if (!doc) return false;
    await this.remove(doc);
    return true;
  }

  async deleteMany(filter: Filter): Promise<number> {
    this.assertOpen();
    const docs = this.matching(filter);
    let written: Promise<void> | undefined;
    for (const doc of docs) written = this.remove(doc);
    await written;
    return docs.length;
  }

  /** When `doc` expires under the TTL indexes (ms), Infinity if never. */
  private expiryOf(doc: Doc): number {
    let at = Infinity;
    for (const ix of this.indexes.values()) {
      if (ix.expireAfterSeconds === undefined) continue;
      // MongoDB uses the earliest Date when the field holds an array; non-Dates never expire.
      for (const v of collectValues(doc, Object.keys(ix.keys)[0]!)) {
        if (v instanceof Date) at = Math.min(at, v.getTime() + ix.expireAfterSeconds * 1000);
      }
    }
    return at;
  }

  /**
   * Removes documents whose TTL has passed, at most MAX_EXPIRED_PER_SWEEP a call (a minute's worth
   * of rate counters expiring together would otherwise stall everything); returns how many.
   */
  expire(now: number): number {
    if (now < this.ttlCheckAfter || ![...this.indexes.values()].some((ix) => ix.expireAfterSeconds !== undefined)) return 0;
    const expired: Doc[] = [];
    let earliest = Infinity;
    for (const doc of this.docs.values()) {
      const at = this.expiryOf(doc);
      if (at <= now && expired.length < MAX_EXPIRED_PER_SWEEP) expired.push(doc);
      else earliest = Math.min(earliest, at);
    }
    for (const doc of expired) this.remove(doc);
    this.ttlCheckAfter = earliest;
    return expired.length;
  }

  private write(before: Doc | null, after: Doc): Promise<void> | undefined {
    if (this.ttlCheckAfter > -Infinity) this.ttlCheckAfter = Math.min(this.ttlCheckAfter, this.expiryOf(after));
    for (const index of this.unique) {
      if (before) index.remove(before);
      index.add(after);
    }
    let ord = this.ords.get(after._id);
    if (ord === undefined) {
      ord = this.nextOrd++;
      this.ords.set(after._id, ord);
    }
    for (const index of this.keyed) index.update(before, after, ord);
    this.docs.set(after._id, after);
    return this.journal?.put(after);
  }

  private remove(doc: Doc): Promise<void> | undefined {
    for (const index of this.unique) index.remove(doc);
    for (const index of this.keyed) index.update(doc, null, this.ords.get(doc._id)!);
    this.docs.delete(doc._id);
    this.ords.delete(doc._id);
    return this.journal?.del(doc._id);
  }

  /**
   * Documents that can match, in natural order: one by _id or a unique-index key, else those under
   * the smallest index lookup (equality or $in on leading index fields), else all.
   */
  private candidates(filter: Filter): { index: string | null; docs: Iterable<Doc> } {
    const id = filter._id;
    if (typeof id === 'string') {
      const doc = this.docs.get(id);
      return { index: '_id_', docs: doc ? [doc] : [] };
    }
    if (isPlainObject(id) && Array.isArray(id.$in) && id.$in.every((v) => typeof v === 'string')) {
      const ids = [...new Set(id.$in as string[])].filter((v) => this.docs.has(v));
      return { index: '_id_', docs: this.byIds(ids.sort((x, y) => this.ords.get(x)! - this.ords.get(y)!)) };
    }
    for (const index of this.unique) {
      if (!index.fields.every((f) => isScalarKey(filter[f]))) continue;
      const owner = index.ownerOf(index.fields.map((f) => keyPart(filter[f])).join('|'));
      const doc = owner === undefined ? undefined : this.docs.get(owner);
      return { index: index.spec.name, docs: doc ? [doc] : [] };
    }
    const lookup = bestLookup(this.keyed, filter);
    return lookup ? { index: lookup.index, docs: this.byIds(lookup.ids()) } : { index: null, docs: this.docs.values() };
  }

  /** The index a filter is served by (null: a full scan) and how many documents mingo then tests. */
  explain(filter: Filter): { index: string | null; candidates: number } {
    const { index, docs } = this.candidates(filter);
    return { index, candidates: [...docs].length };
  }

  private *byIds(ids: Iterable<string>): Iterable<Doc> {
    for (const id of ids) yield this.docs.get(id)!;
  }

  /** Matching documents in natural (insertion) order, stopping after `max`. */
  private matching(filter: Filter, max = Infinity): Doc[] {
    const all = this.candidates(filter).docs;
    // No condition, or only the _id its one candidate was found by: nothing left to test.
    const fields = Object.keys(filter);
    const exact = fields.length === 0 || (fields.length === 1 && typeof filter._id === 'string');
    const test = exact ? null : compileMatcher(filter);
    const out: Doc[] = [];
    for (const doc of all) {
      if (out.length >= max) break;
      if (!test || test(doc)) out.push(doc);
    }
    return out;
  }

  private select(filter: Filter, options: FindOptions = {}): Doc[] {
    const sorted = options.sort !== undefined && Object.keys(options.sort).length > 0;
    const skip = options.skip ?? 0;
    const limit = options.limit && options.limit > 0 ? options.limit : undefined;
    let docs = this.matching(filter, sorted || limit === undefined ? Infinity : skip + limit);
    if (sorted) {
      const top = limit === undefined ? null : topK(docs, options.sort!, skip + limit);
      docs = top ?? compileQuery({}).find<Doc>(docs).sort(options.sort!).all();
    }
    return docs.slice(skip, limit === undefined ? undefined : skip + limit);
  }
}
