// In-memory databases and collections: documents by _id (insertion order kept), index specs, and
// hash maps for unique indexes so violations are found without scanning.
import type { Document } from 'bson';
import { CommandError } from './errors.js';
import { keyOf, pathValues, render } from './values.js';

export interface IndexSpec {
  v: 2;
  key: Record<string, number>;
  name: string;
  unique?: boolean;
  expireAfterSeconds?: number;
}

export class WireCollection {
  /** keyOf(_id) -> document. Stored documents are replaced, never mutated. */
  readonly docs = new Map<string, Document>();
  readonly indexes: IndexSpec[] = [{ v: 2, key: { _id: 1 }, name: '_id_' }];
  /** Unique index name -> index key -> keyOf(_id) of the owner. */
  private readonly unique = new Map<string, Map<string, string>>();

  constructor(
    readonly db: string,
    readonly name: string,
  ) {}

  get ns(): string {
    return `${this.db}.${this.name}`;
  }

  all(): Document[] {
    return [...this.docs.values()];
  }

  private keysFor(spec: IndexSpec, doc: Document): string[] {
    let keys = [''];
    for (const field of Object.keys(spec.key)) {
      const parts = [...new Set(pathValues(doc, field).map(keyOf))];
      keys = keys.flatMap((prefix) => parts.map((p) => `${prefix}|${p}`));
    }
    return [...new Set(keys)];
  }

  private duplicate(spec: IndexSpec, doc: Document): CommandError {
    const keyValue = Object.fromEntries(Object.keys(spec.key).map((f) => [f, pathValues(doc, f)[0] ?? null]));
    return new CommandError(11000, `E11000 duplicate key error collection: ${this.ns} index: ${spec.name} dup key: ${render(keyValue)}`, {
      keyPattern: spec.key,
      keyValue,
    });
  }

  /** Throws E11000 if `after` (replacing `before`, or new) would break a unique index. */
  check(before: Document | null, after: Document): void {
    const id = keyOf(after._id);
    if (!before && this.docs.has(id)) throw this.duplicate(this.indexes[0]!, after);
    for (const spec of this.indexes) {
      const owners = this.unique.get(spec.name);
      if (!owners) continue;
      for (const k of this.keysFor(spec, after)) {
        const owner = owners.get(k);
        if (owner !== undefined && owner !== id) throw this.duplicate(spec, after);
      }
    }
  }

  private track(doc: Document, add: boolean): void {
    const id = keyOf(doc._id);
    for (const spec of this.indexes) {
      const owners = this.unique.get(spec.name);
      if (!owners) continue;
      for (const k of this.keysFor(spec, doc)) {
        if (add) owners.set(k, id);
        else if (owners.get(k) === id) owners.delete(k);
      }
    }
  }

  insert(doc: Document): void {
    this.check(null, doc);
    this.docs.set(keyOf(doc._id), doc);
    this.track(doc, true);
  }

  replace(before: Document, after: Document): void {
    this.check(before, after);
    this.track(before, false);
    this.docs.set(keyOf(after._id), after);
    this.track(after, true);
  }

  remove(doc: Document): void {
    this.track(doc, false);
    this.docs.delete(keyOf(doc._id));
  }

  /** Adds an index; a unique one is built first so existing duplicates fail the whole call. */
  addIndex(spec: IndexSpec): void {
    if (spec.unique) {
      const owners = new Map<string, string>();
      for (const doc of this.docs.values()) {
        const id = keyOf(doc._id);
        for (const k of this.keysFor(spec, doc)) {
          const owner = owners.get(k);
          if (owner !== undefined && owner !== id) throw this.duplicate(spec, doc);
          owners.set(k, id);
        }
      }
      this.unique.set(spec.name, owners);
    }
    this.indexes.push(spec);
  }

  dropIndex(name: string): void {
    const at = this.indexes.findIndex((ix) => ix.name === name);
    if (at <= 0) throw new CommandError(27, `index not found with name [${name}]`);
    this.indexes.splice(at, 1);
    this.unique.delete(name);
  }

  /** Removes documents whose TTL index date has passed. */
  expire(now: number): void {
    for (const spec of this.indexes) {
      if (spec.expireAfterSeconds === undefined) continue;
      const field = Object.keys(spec.key)[0]!;
      const limit = now - spec.expireAfterSeconds * 1000;
      for (const doc of this.all()) {
        const times = pathValues(doc, field)
          .filter((v): v is Date => v instanceof Date)
          .map((d) => d.getTime());
        if (times.length > 0 && Math.min(...times) <= limit) this.remove(doc);
      }
    }
  }
}

/** All databases of one server. */
export class Storage {
  private readonly dbs = new Map<string, Map<string, WireCollection>>();

  databaseNames(): string[] {
    return [...this.dbs.keys()];
  }

  collections(db: string): WireCollection[] {
    return [...(this.dbs.get(db)?.values() ?? [])];
  }

  get(db: string, name: string): WireCollection | undefined {
    return this.dbs.get(db)?.get(name);
  }

  /** The collection, created on first write as MongoDB does. */
  ensure(db: string, name: string): WireCollection {
    if (typeof name !== 'string' || name === '' || name.includes('\0') || name.startsWith('system.')) {
      throw new CommandError(73, `Invalid collection name: ${String(name)}`);
    }
    let colls = this.dbs.get(db);
    if (!colls) {
      colls = new Map();
      this.dbs.set(db, colls);
    }
    let coll = colls.get(name);
    if (!coll) {
      coll = new WireCollection(db, name);
      colls.set(name, coll);
    }
    return coll;
  }

  drop(db: string, name: string): WireCollection | undefined {
    const coll = this.get(db, name);
    this.dbs.get(db)?.delete(name);
    return coll;
  }

  dropDatabase(db: string): void {
    this.dbs.delete(db);
  }

  expire(now: number): void {
    for (const colls of this.dbs.values()) for (const coll of colls.values()) coll.expire(now);
  }
}
