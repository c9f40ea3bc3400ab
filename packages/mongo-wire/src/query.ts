// Filtering, sorting and projection with mingo, wrapped so bad input gives MongoDB error documents.
import type { Document } from 'bson';
import { Query } from 'mingo';
import { compare, resolve } from 'mingo/util';
import { CommandError, notImplemented } from './errors.js';

/** No server-side JavaScript ($where, $function, $accumulator): this server does not run code. */
export const MINGO_OPTIONS = { scriptEnabled: false } as const;
import type { WireCollection } from './storage.js';
import { isPlainObject, keyOf } from './values.js';

function compile(filter: Document): Query {
  try {
    return new Query(filter, MINGO_OPTIONS);
  } catch (err) {
    throw new CommandError(2, (err as Error).message);
  }
}

function asObject(v: unknown, what: string): Document {
  if (v === undefined || v === null) return {};
  if (!isPlainObject(v)) throw new CommandError(14, `${what} must be an object`);
  return v;
}

/** Documents of `coll` matching `filter`, in natural order. */
export function match(coll: WireCollection | undefined, rawFilter: unknown): Document[] {
  const filter = asObject(rawFilter, 'filter');
  if (!coll) return [];
  const keys = Object.keys(filter);
  if (keys.length === 0) return coll.all();
  const id = filter._id;
  // Equality on _id: one hash lookup (other conditions still apply).
  const candidates =
    id !== undefined &&
    id !== null &&
    (typeof id !== 'object' || (id as { _bsontype?: string })._bsontype !== undefined || id instanceof Date)
      ? [coll.docs.get(keyOf(id))].filter((d): d is Document => d !== undefined)
      : coll.all();
  const q = compile(filter);
  return candidates.filter((d) => q.test(d));
}

export function sortDocs(docs: Document[], rawSort: unknown): Document[] {
  const sort = asObject(rawSort, 'sort');
  if (Object.keys(sort).length === 0) return docs;
  for (const [k, v] of Object.entries(sort)) {
    if (v !== 1 && v !== -1) {
      if (isPlainObject(v)) throw notImplemented(`$meta sort on '${k}'`);
      throw new CommandError(2, `$sort key ordering must be 1 (for ascending) or -1 (for descending)`);
    }
  }
  // mingo's comparison and path resolution, without its $sort, which hashes every key value to
  // group equal ones (most of a paged find's time on a few thousand documents).
  const keys = Object.entries(sort) as [string, 1 | -1][];
  const rows = docs.map((doc) => ({ doc, values: keys.map(([k]) => resolve(doc, k)) }));
  rows.sort((a, b) => {
    for (let i = 0; i < keys.length; i++) {
      const c = compare(a.values[i], b.values[i]);
      if (c !== 0) return c * keys[i]![1];
    }
    return 0;
  });
  return rows.map((r) => r.doc);
}

export function project(docs: Document[], rawProjection: unknown): Document[] {
  const projection = asObject(rawProjection, 'projection');
  if (Object.keys(projection).length === 0) return docs;
  try {
    return new Query({}, MINGO_OPTIONS).find<Document>(docs, projection).all();
  } catch (err) {
    throw new CommandError(2, (err as Error).message);
  }
}

/** Options that change what a command returns and that this server does not implement. */
export function rejectUnsupported(cmd: Document, options: string[]): void {
  for (const o of options) if (cmd[o] !== undefined && cmd[o] !== false) throw notImplemented(`the '${o}' option`);
}

export function nonNegative(v: unknown, what: string): number {
  if (v === undefined || v === null) return 0;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new CommandError(2, `${what} must be a non-negative integer, got ${String(v)}`);
  return n;
}
