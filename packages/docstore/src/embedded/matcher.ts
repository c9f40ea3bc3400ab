// Compiled filters. mingo's exported Query copies its whole operator table (hundreds of entries)
// on every construction, about 20 µs, more than most hot-path queries cost to evaluate; its core
// Query with a context of query operators only copies a few dozen.
//
// The filters the services send are mostly equalities, ranges ($gt/$gte/$lt/$lte), $in, and $or /
// $and of those, on top-level fields holding strings, numbers, booleans or dates. Those are
// evaluated here in plain JavaScript: with mingo, a usage export walking 2,500 rows spent most of
// its time in mingo's type checks. A document whose field holds anything else (an array, an
// object, another type than the bound's) is judged by mingo, so the rules stay MongoDB's (mingo's).
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
const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Date) && Object.getPrototypeOf(v) === Object.prototype;

/** true or false when plain JavaScript can tell; undefined: the document needs mingo's rules. */
type Verdict = boolean | undefined;
type Test = (doc: Doc) => Verdict;

/** Scalars a filter value is compared with here: a missing field and null differ from them all. */
const settled = (v: unknown) => v === undefined || v === null || isPrimitive(v) || v instanceof Date;

function equals(field: string, value: Primitive | Date): Test {
  if (value instanceof Date) {
    const t = value.getTime();
    return (doc) => {
      const v = doc[field];
      if (v instanceof Date) return v.getTime() === t;
      return settled(v) ? false : undefined;
    };
  }
  return (doc) => {
    const v = doc[field];
    if (v === value) return true;
    return settled(v) ? false : undefined;
  };
}

const RANGE = new Set(['$gt', '$gte', '$lt', '$lte']);

/** $gt/$gte/$lt/$lte with bounds of one kind (numbers, strings or dates); null when not that. */
function range(field: string, cond: Record<string, unknown>): Test | null {
  const ops = Object.entries(cond);
  if (ops.length === 0 || !ops.every(([op]) => RANGE.has(op))) return null;
  const kinds = new Set(ops.map(([, b]) => (b instanceof Date ? 'date' : typeof b === 'number' && !Number.isNaN(b) ? 'number' : typeof b)));
  const kind = [...kinds][0];
  if (kinds.size !== 1 || (kind !== 'date' && kind !== 'number' && kind !== 'string')) return null;
  // The document's value as a comparable number or string when it is of the bounds' kind.
  const read: (v: unknown) => number | string | undefined =
    kind === 'date'
      ? (v) => (v instanceof Date ? v.getTime() : undefined)
      : kind === 'number'
        ? (v) => (typeof v === 'number' && !Number.isNaN(v) ? v : undefined)
        : (v) => (typeof v === 'string' ? v : undefined);
  const bound = (op: string) => (op in cond ? read(cond[op]) : undefined);
  const [gt, gte, lt, lte] = ['$gt', '$gte', '$lt', '$lte'].map(bound);
  return (doc) => {
    const v = doc[field];
    const x = read(v);
    if (x === undefined) return settled(v) ? false : undefined;
    return (
      (gt === undefined || x > gt) && (gte === undefined || x >= gte) && (lt === undefined || x < lt) && (lte === undefined || x <= lte)
    );
  };
}

function within(field: string, values: unknown): Test | null {
  if (!Array.isArray(values) || !values.every(isPrimitive)) return null;
  const set = new Set<unknown>(values);
  return (doc) => {
    const v = doc[field];
    if (isPrimitive(v)) return set.has(v);
    return settled(v) ? false : undefined;
  };
}

/**
 * Three-valued AND (decisive false) or OR (decisive true): one decisive answer settles it; else
 * undecided (undefined) if any test was, else the other value.
 */
function combine(tests: Test[], decisive: boolean): Test {
  return (doc) => {
    let verdict: Verdict = !decisive;
    for (const t of tests) {
      const r = t(doc);
      if (r === decisive) return decisive;
      if (r === undefined) verdict = undefined;
    }
    return verdict;
  };
}

const all = (tests: Test[]): Test => combine(tests, false);
const any = (tests: Test[]): Test => combine(tests, true);

/** The filter in plain JavaScript, or null when it uses anything else (then mingo judges it). */
function compileFast(filter: Filter): Test | null {
  const tests: Test[] = [];
  for (const [field, cond] of Object.entries(filter)) {
    if (field === '$or' || field === '$and') {
      if (!Array.isArray(cond) || cond.length === 0) return null;
      const parts = cond.map((c) => (isPlainObject(c) ? compileFast(c as Filter) : null));
      if (parts.some((p) => p === null)) return null;
      tests.push((field === '$or' ? any : all)(parts as Test[]));
      continue;
    }
    if (field.startsWith('$') || field.includes('.')) return null;
    let test: Test | null = null;
    if (isPrimitive(cond) || cond instanceof Date) test = equals(field, cond);
    else if (isPlainObject(cond) && Object.keys(cond).length === 1 && '$in' in cond) test = within(field, cond.$in);
    else if (isPlainObject(cond)) test = range(field, cond);
    if (!test) return null;
    tests.push(test);
  }
  return all(tests);
}

/** A test for one document; undefined filter fields never reach here (callers pass real filters). */
export function compileMatcher(filter: Filter): (doc: Doc) => boolean {
  const fast = compileFast(filter);
  if (!fast) {
    const query = compileQuery(filter); // refuses what mingo refuses ($where) at once
    return (doc) => query.test(doc);
  }
  let query: Query | undefined; // only for documents plain JavaScript cannot settle
  return (doc) => {
    const verdict = fast(doc);
    if (verdict !== undefined) return verdict;
    query ??= compileQuery(filter);
    return query.test(doc);
  };
}
