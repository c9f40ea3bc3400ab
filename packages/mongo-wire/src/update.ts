// Update documents for the test server: operator updates (applied by mingo's updater after the
// checks MongoDB makes and mingo skips), replacements, and the document an upsert inserts.
import { ObjectId, type Document } from 'bson';
import { update as mingoUpdate } from 'mingo';
import { CommandError, notImplemented } from './errors.js';
import { MINGO_OPTIONS } from './query.js';
import { copyDoc, isPlainObject, keyOf, render, setPath } from './values.js';

const SUPPORTED = new Set([
  '$set',
  '$unset',
  '$inc',
  '$mul',
  '$min',
  '$max',
  '$rename',
  '$push',
  '$pull',
  '$pullAll',
  '$addToSet',
  '$pop',
  '$currentDate',
  '$setOnInsert',
]);
const NUMERIC = new Set(['$inc', '$mul']);
const ARRAY = new Set(['$push', '$addToSet', '$pull', '$pullAll', '$pop']);

export function isReplacement(u: Document): boolean {
  return !Object.keys(u).some((k) => k.startsWith('$'));
}

function typeName(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (v instanceof Date) return 'date';
  return typeof v === 'object' ? 'object' : typeof v === 'number' ? 'double' : typeof v;
}

/** The value at a path without fan-out, or a marker saying an intermediate is not a container. */
function lookup(doc: Document, path: string): { value: unknown; blockedBy?: { field: string; value: unknown } } {
  let cur: unknown = doc;
  for (const seg of path.split('.')) {
    if (cur === undefined || cur === null) return { value: undefined };
    if (Array.isArray(cur)) cur = /^\d+$/.test(seg) ? cur[Number(seg)] : undefined;
    else if (isPlainObject(cur)) cur = cur[seg];
    else return { value: undefined, blockedBy: { field: seg, value: cur } };
  }
  return { value: cur };
}

function validate(doc: Document, update: Document): void {
  const seen: string[] = [];
  for (const [op, fields] of Object.entries(update)) {
    if (!op.startsWith('$')) throw new CommandError(9, 'Unknown modifier: mixing update operators and replacement fields');
    if (!SUPPORTED.has(op)) {
      throw new CommandError(9, `Unknown modifier: ${op}. Expected a valid update modifier or pipeline-style update specified as an array`);
    }
    if (!isPlainObject(fields)) throw new CommandError(9, `Modifiers operate on fields but we found type ${typeName(fields)} instead.`);
    for (const [path, arg] of Object.entries(fields)) {
      if (path.split('.').some((s) => s.startsWith('$') || s === '')) notImplementedPath(path);
      const clash = seen.find((p) => p === path || p.startsWith(`${path}.`) || path.startsWith(`${p}.`));
      if (clash) throw new CommandError(40, `Updating the path '${path}' would create a conflict at '${clash}'`);
      seen.push(path);
      if (op === '$rename') seen.push(String(arg));
      if (path === '_id' || path.startsWith('_id.')) {
        if (!(op === '$set' || op === '$setOnInsert') || keyOf(arg) !== keyOf(doc._id)) {
          throw new CommandError(66, "Performing an update on the path '_id' would modify the immutable field '_id'");
        }
      }
      const found = lookup(doc, path);
      if (found.blockedBy && op !== '$unset' && op !== '$pull' && op !== '$pullAll') {
        throw new CommandError(
          28,
          `Cannot create field '${found.blockedBy.field}' in element {${path.split('.')[0]}: ${render(found.blockedBy.value)}}`,
        );
      }
      if (NUMERIC.has(op)) {
        if (typeof arg !== 'number')
          throw new CommandError(
            14,
            `Cannot ${op === '$inc' ? 'increment' : 'multiply'} with non-numeric argument: {${path}: ${render(arg)}}`,
          );
        if (found.value !== undefined && typeof found.value !== 'number') {
          throw new CommandError(
            14,
            `Cannot apply ${op} to a value of non-numeric type. {_id: ${render(doc._id)}} has the field '${path}' of non-numeric type ${typeName(found.value)}`,
          );
        }
      }
      if (ARRAY.has(op) && found.value !== undefined && !Array.isArray(found.value)) {
        throw new CommandError(
          2,
          op.startsWith('$pull')
            ? `Cannot apply ${op} to a non-array value`
            : `The field '${path}' must be an array but is of type ${typeName(found.value)} in document {_id: ${render(doc._id)}}`,
        );
      }
    }
  }
}

function notImplementedPath(path: string): never {
  throw notImplemented(`positional or empty update paths ('${path}')`);
}

/** Applies an update document (operators or replacement) to a copy of `doc`. */
export function applyUpdate(doc: Document, update: Document | Document[], inserting: boolean): Document {
  if (Array.isArray(update)) throw notImplemented('pipeline-style updates');
  if (isReplacement(update)) {
    if (update._id !== undefined && keyOf(update._id) !== keyOf(doc._id)) {
      throw new CommandError(66, "After applying the update, the (immutable) field '_id' was found to have been altered");
    }
    return copyDoc({ _id: doc._id, ...update });
  }
  validate(doc, update);
  const { $setOnInsert, ...ops } = update;
  const modifier: Document = { ...ops };
  if (inserting && $setOnInsert) modifier.$set = { ...($setOnInsert as Document), ...((ops.$set as Document) ?? {}) };
  const { _id, ...setRest } = (modifier.$set as Document | undefined) ?? {};
  if (modifier.$set) modifier.$set = setRest; // _id was checked above; it cannot change
  for (const k of Object.keys(modifier)) if (Object.keys(modifier[k] as Document).length === 0) delete modifier[k];
  const out = copyDoc(doc);
  if (Object.keys(modifier).length > 0)
    mingoUpdate(out, modifier, undefined, undefined, { cloneMode: 'deep', queryOptions: MINGO_OPTIONS });
  return out;
}

/**
 * Equality conditions of a query, as MongoDB uses them to seed an upserted document: top-level
 * and $and fields with a literal value, {$eq: v}, or a one-element $in.
 */
function seedFrom(query: Document): Document {
  const seed: Document = {};
  const visit = (q: Document): void => {
    for (const [k, v] of Object.entries(q)) {
      if (k === '$and' && Array.isArray(v)) {
        for (const sub of v) if (isPlainObject(sub)) visit(sub);
      }
      if (k.startsWith('$') || v instanceof RegExp) continue;
      if (isPlainObject(v) && Object.keys(v).some((x) => x.startsWith('$'))) {
        if ('$eq' in v) setPath(seed, k, v.$eq);
        else if (Array.isArray(v.$in) && v.$in.length === 1 && !(v.$in[0] instanceof RegExp)) setPath(seed, k, v.$in[0]);
        continue;
      }
      setPath(seed, k, v);
    }
  };
  visit(query);
  return seed;
}

/** The document an upsert inserts when nothing matched `query`. */
export function buildUpsert(query: Document, update: Document | Document[]): Document {
  if (Array.isArray(update)) throw notImplemented('pipeline-style updates');
  const seed = seedFrom(query);
  if (isReplacement(update)) return copyDoc({ _id: seed._id ?? update._id ?? new ObjectId(), ...update });
  const given = (update.$setOnInsert as Document | undefined)?._id ?? (update.$set as Document | undefined)?._id;
  const start: Document = { _id: seed._id ?? given ?? new ObjectId(), ...seed };
  return applyUpdate(start, update, true);
}
