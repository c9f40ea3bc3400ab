// Index bookkeeping for the embedded engine: unique indexes as hash maps (key -> _id) so checks
// never scan, and TTL indexes as field names the expiry sweep reads.
import { DuplicateKeyError, type Doc, type IndexSpec } from '../types.js';
import { collectValues } from './paths.js';
import { describe, keyPart } from './values.js';

export interface NormalizedIndex {
  name: string;
  keys: Record<string, 1 | -1>;
  unique: boolean;
  expireAfterSeconds?: number;
}

export function indexName(keys: Record<string, 1 | -1>): string {
  return Object.entries(keys)
    .map(([k, d]) => `${k}_${d}`)
    .join('_');
}

export function normalizeIndex(spec: IndexSpec): NormalizedIndex {
  const fields = Object.keys(spec.keys);
  if (fields.length === 0) throw new Error('index needs at least one key');
  for (const d of Object.values(spec.keys)) if (d !== 1 && d !== -1) throw new Error(`index direction must be 1 or -1, got ${d}`);
  if (spec.expireAfterSeconds !== undefined) {
    if (fields.length !== 1) throw new Error('a TTL index must have exactly one key');
    if (!(spec.expireAfterSeconds >= 0)) throw new Error('expireAfterSeconds must be >= 0');
  }
  const out: NormalizedIndex = { name: spec.name ?? indexName(spec.keys), keys: { ...spec.keys }, unique: spec.unique === true };
  if (spec.expireAfterSeconds !== undefined) out.expireAfterSeconds = spec.expireAfterSeconds;
  return out;
}

export function sameIndex(a: NormalizedIndex, b: NormalizedIndex): boolean {
  return (
    a.name === b.name && indexName(a.keys) === indexName(b.keys) && a.unique === b.unique && a.expireAfterSeconds === b.expireAfterSeconds
  );
}

/**
 * The distinct keys a document contributes to an index. Missing fields index as null (so two
 * documents without the field collide in a unique index, as in MongoDB); arrays fan out.
 */
export function indexKeys(doc: Doc, fields: string[]): string[] {
  let keys = [''];
  for (const field of fields) {
    const parts = [...new Set(collectValues(doc, field).map(keyPart))];
    keys = keys.flatMap((prefix) => parts.map((p) => (prefix ? `${prefix}|${p}` : p)));
  }
  return [...new Set(keys)];
}

/** One unique index: key -> owning _id. */
export class UniqueIndex {
  readonly fields: string[];
  private readonly owners = new Map<string, string>();

  constructor(readonly spec: NormalizedIndex) {
    this.fields = Object.keys(spec.keys);
  }

  keysOf(doc: Doc): string[] {
    return indexKeys(doc, this.fields);
  }

  ownerOf(key: string): string | undefined {
    return this.owners.get(key);
  }

  add(doc: Doc): void {
    for (const k of this.keysOf(doc)) this.owners.set(k, doc._id);
  }

  remove(doc: Doc): void {
    for (const k of this.keysOf(doc)) if (this.owners.get(k) === doc._id) this.owners.delete(k);
  }

  clear(): void {
    this.owners.clear();
  }

  duplicate(doc: Doc): DuplicateKeyError {
    const key = Object.fromEntries(this.fields.map((f) => [f, collectValues(doc, f)[0] ?? null]));
    return new DuplicateKeyError(`E11000 duplicate key error index: ${this.spec.name} dup key: ${describe(key)}`);
  }
}

/**
 * Checks a batch of replacements (old -> new, old null for inserts) against the unique indexes as
 * if applied together, so a failing batch changes nothing.
 */
export function checkUnique(indexes: UniqueIndex[], changes: Array<{ before: Doc | null; after: Doc }>): void {
  const changing = new Set(changes.map((c) => c.after._id));
  for (const index of indexes) {
    const pending = new Map<string, string>();
    for (const { after } of changes) {
      for (const key of index.keysOf(after)) {
        const claimed = pending.get(key);
        if (claimed !== undefined && claimed !== after._id) throw index.duplicate(after);
        const owner = index.ownerOf(key);
        if (owner !== undefined && owner !== after._id && !changing.has(owner)) throw index.duplicate(after);
        pending.set(key, after._id);
      }
    }
  }
}
