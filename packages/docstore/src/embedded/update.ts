// Update operators for the embedded engine ($set, $unset, $inc, $setOnInsert, $push, $pull) and
// the document MongoDB builds for an upsert. Each function works on a copy the caller owns.
import type { Doc, Filter, Update } from '../types.js';
import { getPath, setPath, unsetPath, UpdatePathError } from './paths.js';
import { compileQuery } from './matcher.js';
import { cloneValue, describe, isPlainObject, valuesEqual, type Plain } from './values.js';

const OPERATORS = new Set(['$set', '$unset', '$inc', '$setOnInsert', '$push', '$pull']);

/** Rejects what MongoDB would reject before touching any document. */
export function validateUpdate(update: Update): void {
  const keys = Object.keys(update);
  if (keys.length === 0) throw new UpdatePathError('update document must contain at least one operator');
  const seen: string[] = [];
  for (const op of keys) {
    if (!OPERATORS.has(op)) throw new UpdatePathError(`unsupported update operator '${op}'`);
    const fields = (update as Record<string, unknown>)[op];
    if (!isPlainObject(fields)) throw new UpdatePathError(`${op} needs an object of fields`);
    for (const path of Object.keys(fields)) {
      // Two operators on the same path (or one path inside another) conflict in MongoDB.
      const clash = seen.find((p) => p === path || p.startsWith(`${path}.`) || path.startsWith(`${p}.`));
      if (clash) throw new UpdatePathError(`Updating the path '${path}' would create a conflict at '${clash}'`);
      seen.push(path);
      if (op === '$inc' && typeof fields[path] !== 'number') {
        throw new UpdatePathError(`Cannot increment with non-numeric argument: {${path}: ${describe(fields[path])}}`);
      }
    }
  }
}

function pullMatcher(cond: unknown): (el: unknown) => boolean {
  if (isPlainObject(cond)) {
    const keys = Object.keys(cond);
    if (keys.length > 0 && keys.every((k) => k.startsWith('$'))) {
      // {$gte: 3}: a condition on the element itself.
      const q = compileQuery({ v: cond });
      return (el) => q.test({ v: el });
    }
    // {a: 1}: a query on each element that is a document.
    const q = compileQuery(cond);
    return (el) => isPlainObject(el) && q.test(el);
  }
  return (el) => valuesEqual(el, cond);
}

/** Applies `update` to `doc` in place; $setOnInsert only when `inserting`. */
export function applyUpdate(doc: Plain, update: Update, inserting: boolean): void {
  const id = doc._id;
  for (const [op, fields] of Object.entries(update) as [string, Plain][]) {
    for (const [path, raw] of Object.entries(fields)) {
      const arg = cloneValue(raw);
      switch (op) {
        case '$setOnInsert':
          if (inserting) setPath(doc, path, arg);
          break;
        case '$set':
          setPath(doc, path, arg);
          break;
        case '$unset':
          unsetPath(doc, path);
          break;
        case '$inc': {
          const cur = getPath(doc, path);
          if (cur === undefined) setPath(doc, path, arg);
          else if (typeof cur === 'number') setPath(doc, path, cur + (arg as number));
          else throw new UpdatePathError(`Cannot apply $inc to a value of non-numeric type: '${path}' is ${describe(cur)}`);
          break;
        }
        case '$push': {
          const each = isPlainObject(arg) && '$each' in arg ? arg : null;
          if (each && Object.keys(each).some((k) => k !== '$each')) {
            throw new UpdatePathError(`$push modifiers other than $each are not supported: ${describe(arg)}`);
          }
          const items = each ? each.$each : [arg];
          if (!Array.isArray(items)) throw new UpdatePathError('$each needs an array');
          const cur = getPath(doc, path);
          if (cur === undefined) setPath(doc, path, items);
          else if (Array.isArray(cur)) cur.push(...items);
          else throw new UpdatePathError(`The field '${path}' must be an array but is ${describe(cur)}`);
          break;
        }
        case '$pull': {
          const cur = getPath(doc, path);
          if (cur === undefined) break;
          if (!Array.isArray(cur)) throw new UpdatePathError(`Cannot apply $pull to a non-array value at '${path}'`);
          const matches = pullMatcher(arg);
          setPath(
            doc,
            path,
            cur.filter((el) => !matches(el)),
          );
          break;
        }
      }
    }
  }
  if (!valuesEqual(doc._id, id)) {
    throw new UpdatePathError("Performing an update on the path '_id' would modify the immutable field '_id'");
  }
}

/**
 * The start of an upserted document, as MongoDB builds it: the equality conditions of the filter
 * (top level and inside $and), with dotted paths expanded. Other operator conditions add nothing.
 */
export function upsertSeed(filter: Filter): Plain {
  const seed: Plain = {};
  const visit = (f: Filter): void => {
    for (const [key, value] of Object.entries(f)) {
      if (key === '$and' && Array.isArray(value)) {
        for (const sub of value) if (isPlainObject(sub)) visit(sub);
        continue;
      }
      if (key.startsWith('$')) continue;
      if (value instanceof RegExp) continue;
      if (isPlainObject(value) && Object.keys(value).some((k) => k.startsWith('$'))) {
        // MongoDB rewrites a one-element $in to an equality before building the upsert.
        if ('$eq' in value) setPath(seed, key, cloneValue(value.$eq));
        else if (Array.isArray(value.$in) && value.$in.length === 1 && !(value.$in[0] instanceof RegExp)) {
          setPath(seed, key, cloneValue(value.$in[0]));
        }
        continue;
      }
      setPath(seed, key, cloneValue(value));
    }
  };
  visit(filter);
  return seed;
}

/** Builds the document an upsert inserts; `newId` supplies _id when neither filter nor update does. */
export function buildUpsert(filter: Filter, update: Update, newId: () => string): Doc {
  const seed = upsertSeed(filter);
  // _id goes first, as in MongoDB; an _id from the update must then agree with the filter's.
  const provided = update.$setOnInsert?._id ?? update.$set?._id;
  const doc: Plain = { _id: seed._id ?? (provided !== undefined ? cloneValue(provided) : newId()), ...seed };
  applyUpdate(doc, update, true);
  return doc as Doc;
}
