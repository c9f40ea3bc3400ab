// Compiled filters. mingo's exported Query copies its whole operator table (hundreds of entries)
// on every construction, about 20 µs, more than most hot-path queries cost to evaluate; its core
// Query with a context of query operators only copies a few dozen. Filters of plain field
// equalities, the most common, skip mingo entirely unless a document's value needs its rules.
import { Context } from 'mingo/core';
import * as queryOperators from 'mingo/operators/query';
import { Query } from 'mingo/query';
import type { Doc, Filter } from '../types.js';

// scriptEnabled: false — filters may carry caller input, so never run $where / $function JavaScript.
const OPTIONS = { scriptEnabled: false, context: Context.init({ query: queryOperators }) } as const;

export const compileQuery = (filter: Filter): Query => new Query(filter, OPTIONS);

type Primitive = string | number | boolean;
const isPrimitive = (v: unknown): v is Primitive =>
  typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && !Number.isNaN(v));

/** A test for one document; undefined filter fields never reach here (callers pass real filters). */
export function compileMatcher(filter: Filter): (doc: Doc) => boolean {
  const fields = Object.keys(filter);
  const plain = fields.every((f) => !f.startsWith('$') && !f.includes('.') && isPrimitive(filter[f]));
  if (!plain) {
    const query = compileQuery(filter);
    return (doc) => query.test(doc);
  }
  let query: Query | undefined; // only for documents holding an array or object in a filtered field
  return (doc) => {
    for (const f of fields) {
      const v = doc[f];
      if (v === filter[f]) continue;
      if (typeof v !== 'object' || v === null || v instanceof Date) return false;
      query ??= compileQuery(filter);
      return query.test(doc);
    }
    return true;
  };
}
