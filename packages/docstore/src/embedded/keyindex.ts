// Lookups for the embedded engine's declared indexes: for each index, one map per leading prefix
// of its fields (level 0 = first field, level 1 = first two, ...) from a key to the documents
// holding it. Equality and $in on those fields then narrow the documents mingo has to test; mingo
// still applies the whole filter, so a lookup only has to return a superset of the matches. A
// level is built the first time a query can use it and kept up to date from then on.
import type { Doc, Filter } from '../types.js';
import { isPlainObject, keyPart } from './values.js';

/** At most this many keys ($in values multiplied over fields) in one lookup. */
const MAX_KEYS = 256;

/** Values a lookup can be keyed on: they equal only values of the same kind, as keyPart encodes. */
function isLookupValue(v: unknown): boolean {
  if (typeof v === 'string' || typeof v === 'boolean') return true;
  if (typeof v === 'number') return !Number.isNaN(v);
  return v instanceof Date && !Number.isNaN(v.getTime());
}

/**
 * The key parts a filter condition on one field can match, or null when it cannot narrow:
 * `value`, `{$eq: value}` and `{$in: [values]}` (other operators beside them only narrow further).
 */
export function conditionParts(cond: unknown): string[] | null {
  if (isLookupValue(cond)) return [keyPart(cond)];
  if (!isPlainObject(cond)) return null;
  const ops = Object.keys(cond);
  if (ops.length === 0 || !ops.every((k) => k.startsWith('$'))) return null;
  if ('$eq' in cond) return isLookupValue(cond.$eq) ? [keyPart(cond.$eq)] : null;
  if (Array.isArray(cond.$in) && cond.$in.every(isLookupValue)) return [...new Set(cond.$in.map(keyPart))];
  return null;
}

/**
 * Every lookup value a path reaches in a document, fanning out over arrays at any depth (more
 * generously than MongoDB, as mingo matches some nested arrays too: an extra key costs nothing).
 */
function reach(cur: unknown, segs: string[], i: number, out: Set<string>): void {
  if (Array.isArray(cur)) {
    for (const el of cur) reach(el, segs, i, out);
  } else if (i === segs.length) {
    if (isLookupValue(cur)) out.add(keyPart(cur));
  } else if (isPlainObject(cur)) {
    reach(cur[segs[i]!], segs, i + 1, out);
  }
}

/** The documents of one key: _id -> natural-order position, in that order unless `ordered` is off. */
class Bucket {
  readonly ids = new Map<string, number>();
  private last = -1;
  private ordered = true;

  add(id: string, ord: number): void {
    if (ord < this.last) this.ordered = false;
    else this.last = ord;
    this.ids.set(id, ord);
  }

  /** The ids in natural order (re-sorted once after out-of-order additions). */
  inOrder(): Iterable<string> {
    if (!this.ordered) {
      const sorted = [...this.ids].sort((a, b) => a[1] - b[1]);
      this.ids.clear();
      for (const [id, ord] of sorted) this.ids.set(id, ord);
      this.ordered = true;
    }
    return this.ids.keys();
  }
}

/** A document with its natural-order position. */
export type Placed = { doc: Doc; ord: number };

export class KeyIndex {
  /** Levels built so far, by prefix length - 1; `top` is the highest one built. */
  private readonly levels: Array<Map<string, Bucket> | undefined>;
  private readonly paths: string[][];
  private top = -1;

  /** `fields`: the leading fields to serve (a unique index leaves its full key to UniqueIndex). */
  constructor(
    readonly name: string,
    readonly fields: string[],
    private readonly all: () => Iterable<Placed>,
  ) {
    this.levels = fields.map(() => undefined);
    this.paths = fields.map((f) => f.split('.'));
  }

  /** Fields an index can serve lookups on: the leading ones without array-position segments. */
  static usable(fields: string[]): string[] {
    const n = fields.findIndex((f) => f.split('.').some((seg) => seg === '' || /^[0-9]+$/.test(seg)));
    return n < 0 ? fields : fields.slice(0, n);
  }

  /** Keys of a document on levels 0..top: parts per field, multiplied out level by level. */
  private keysOf(doc: Doc): string[][] {
    const out: string[][] = [];
    let keys = [''];
    for (let level = 0; level <= this.top; level++) {
      const parts = new Set<string>();
      reach(doc, this.paths[level]!, 0, parts);
      keys = keys.flatMap((prefix) => [...parts].map((p) => (level === 0 ? p : `${prefix}|${p}`)));
      out.push(keys);
    }
    return out;
  }

  /** Moves a document between keys: before null for an insert, after null for a delete. */
  update(before: Doc | null, after: Doc | null, ord: number): void {
    if (this.top < 0) return;
    const old = before ? this.keysOf(before) : [];
    const now = after ? this.keysOf(after) : [];
    this.levels.forEach((map, level) => {
      if (!map) return;
      const was = old[level] ?? [];
      const is = now[level] ?? [];
      if (was.length === is.length && was.every((k, i) => k === is[i])) return;
      for (const key of was) {
        if (is.includes(key)) continue;
        const bucket = map.get(key);
        bucket?.ids.delete(before!._id);
        if (bucket?.ids.size === 0) map.delete(key);
      }
      for (const key of is) if (!was.includes(key)) this.bucket(map, key).add(after!._id, ord);
    });
  }

  private bucket(map: Map<string, Bucket>, key: string): Bucket {
    let bucket = map.get(key);
    if (!bucket) {
      bucket = new Bucket();
      map.set(key, bucket);
    }
    return bucket;
  }

  private level(level: number): Map<string, Bucket> {
    let map = this.levels[level];
    if (map) return map;
    map = new Map();
    this.levels[level] = map;
    this.top = Math.max(this.top, level);
    for (const { doc, ord } of this.all()) for (const key of this.keysOf(doc)[level] ?? []) this.bucket(map, key).add(doc._id, ord);
    return map;
  }

  /** The deepest lookup the filter allows (within MAX_KEYS keys), or null. */
  plan(filter: Filter): Lookup | null {
    let keys: string[] = [];
    let depth = 0;
    for (; depth < this.fields.length; depth++) {
      const parts = conditionParts(filter[this.fields[depth]!]);
      if (!parts || (depth > 0 ? keys.length : 1) * parts.length > MAX_KEYS) break;
      keys = depth === 0 ? parts : keys.flatMap((prefix) => parts.map((p) => `${prefix}|${p}`));
    }
    return depth === 0 ? null : new Lookup(this.name, this.level(depth - 1), keys);
  }
}

/** One planned lookup: the buckets of some keys on one level. */
export class Lookup {
  constructor(
    readonly index: string,
    private readonly map: Map<string, Bucket>,
    private readonly keys: string[],
  ) {}

  /** How many documents it yields (an upper bound when a multikey document is under several keys). */
  size(): number {
    let n = 0;
    for (const key of this.keys) n += this.map.get(key)?.ids.size ?? 0;
    return n;
  }

  /** The _ids, each once, in natural order. */
  ids(): Iterable<string> {
    const buckets = this.keys.map((k) => this.map.get(k)).filter((b) => b !== undefined);
    if (buckets.length === 0) return [];
    if (buckets.length === 1) return buckets[0]!.inOrder();
    const merged = new Map<string, number>();
    for (const b of buckets) for (const [id, ord] of b.ids) merged.set(id, ord);
    return [...merged].sort((a, b) => a[1] - b[1]).map(([id]) => id);
  }
}

/** The smallest lookup any of the indexes offers for the filter, or null (scan everything). */
export function bestLookup(indexes: KeyIndex[], filter: Filter): Lookup | null {
  let best: Lookup | null = null;
  let bestSize = Infinity;
  for (const index of indexes) {
    const lookup = index.plan(filter);
    if (!lookup) continue;
    const size = lookup.size();
    if (size < bestSize) [best, bestSize] = [lookup, size];
  }
  return best;
}
