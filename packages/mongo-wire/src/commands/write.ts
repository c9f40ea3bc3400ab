// Write commands: insert, update, delete and findAndModify. Each runs synchronously, so a
// findAndModify is atomic with respect to every other command, as on a real server.
import { ObjectId, type Document } from 'bson';
import { CommandError } from '../errors.js';
import { match, project, sortDocs } from '../query.js';
import { applyUpdate, buildUpsert } from '../update.js';
import { copyDoc, isPlainObject, keyOf } from '../values.js';
import { target, type Context, type Handler } from './context.js';

function checkId(doc: Document): void {
  if (Array.isArray(doc._id)) throw new CommandError(2, "can't use an array for _id");
  if (doc._id instanceof RegExp) throw new CommandError(2, "can't use a regex for _id");
}

/** Runs each item of a write batch; ordered batches stop at the first error (MongoDB semantics). */
function eachWrite<T>(items: T[], ordered: boolean, run: (item: T, index: number) => void): Document[] {
  const writeErrors: Document[] = [];
  for (const [i, item] of items.entries()) {
    try {
      run(item, i);
    } catch (err) {
      if (!(err instanceof CommandError)) throw err;
      writeErrors.push(err.toWriteError(i));
      if (ordered) break;
    }
  }
  return writeErrors;
}

function batch(cmd: Document, field: string): Document[] {
  const items = cmd[field];
  if (!Array.isArray(items)) throw new CommandError(14, `BSON field '${field}' is missing or not an array`);
  return items as Document[];
}

function reply(body: Document, writeErrors: Document[]): Document {
  return writeErrors.length ? { ...body, writeErrors, ok: 1 } : { ...body, ok: 1 };
}

const insert: Handler = (cmd, ctx) => {
  const name = target(cmd, 'insert');
  const docs = batch(cmd, 'documents');
  let n = 0;
  const writeErrors = eachWrite(docs, cmd.ordered !== false, (raw) => {
    if (!isPlainObject(raw)) throw new CommandError(2, 'document to insert must be an object');
    // _id goes first, and the server makes one if the client did not.
    const doc = copyDoc({ _id: raw._id ?? new ObjectId(), ...raw });
    checkId(doc);
    ctx.storage.ensure(ctx.db, name).insert(doc);
    n++;
  });
  return reply({ n }, writeErrors);
};

function updateOne(ctx: Context, name: string, spec: Document, index: number, upserted: Document[]): { n: number; modified: number } {
  if (!isPlainObject(spec) || spec.u === undefined)
    throw new CommandError(9, "BSON field 'update.updates.u' is missing but a required field");
  if (spec.arrayFilters !== undefined || spec.collation !== undefined)
    throw new CommandError(238, 'mongo-wire test server does not support arrayFilters or collation');
  const coll = ctx.storage.get(ctx.db, name);
  let targets = match(coll, spec.q);
  if (!spec.multi) targets = sortDocs(targets, spec.sort).slice(0, 1);
  if (targets.length === 0) {
    if (!spec.upsert) return { n: 0, modified: 0 };
    const doc = buildUpsert(spec.q ?? {}, spec.u as Document);
    checkId(doc);
    ctx.storage.ensure(ctx.db, name).insert(doc);
    upserted.push({ index, _id: doc._id });
    return { n: 1, modified: 0 };
  }
  if (spec.multi && !Object.keys(spec.u as Document).every((k) => k.startsWith('$'))) {
    throw new CommandError(9, 'multi update is not supported for replacement-style update');
  }
  let modified = 0;
  for (const before of targets) {
    const after = applyUpdate(before, spec.u as Document, false);
    coll!.replace(before, after);
    if (keyOf(before) !== keyOf(after)) modified++;
  }
  return { n: targets.length, modified };
}

const update: Handler = (cmd, ctx) => {
  const name = target(cmd, 'update');
  let n = 0;
  let nModified = 0;
  const upserted: Document[] = [];
  const writeErrors = eachWrite(batch(cmd, 'updates'), cmd.ordered !== false, (spec, i) => {
    const r = updateOne(ctx, name, spec, i, upserted);
    n += r.n;
    nModified += r.modified;
  });
  return reply(upserted.length ? { n, nModified, upserted } : { n, nModified }, writeErrors);
};

const del: Handler = (cmd, ctx) => {
  const name = target(cmd, 'delete');
  let n = 0;
  const writeErrors = eachWrite(batch(cmd, 'deletes'), cmd.ordered !== false, (spec) => {
    if (!isPlainObject(spec) || (spec.limit !== 0 && spec.limit !== 1)) throw new CommandError(9, 'delete limit must be 0 or 1');
    const coll = ctx.storage.get(ctx.db, name);
    const docs = match(coll, spec.q);
    for (const doc of spec.limit === 1 ? docs.slice(0, 1) : docs) coll!.remove(doc);
    n += spec.limit === 1 ? Math.min(1, docs.length) : docs.length;
  });
  return reply({ n }, writeErrors);
};

const findAndModify: Handler = (cmd, ctx) => {
  const name = target(cmd, 'findAndModify');
  if (cmd.arrayFilters !== undefined || cmd.collation !== undefined)
    throw new CommandError(238, 'mongo-wire test server does not support arrayFilters or collation');
  const remove = cmd.remove === true;
  if (remove === (cmd.update !== undefined)) throw new CommandError(9, 'Either an update or remove=true must be specified');
  if (remove && cmd.upsert) throw new CommandError(9, 'Cannot specify both upsert=true and remove=true');
  const coll = ctx.storage.get(ctx.db, name);
  const [before] = sortDocs(match(coll, cmd.query), cmd.sort);
  const shape = (doc: Document | null): Document | null => (doc ? project([doc], cmd.fields)[0]! : null);
  if (remove) {
    if (before) coll!.remove(before);
    return { lastErrorObject: { n: before ? 1 : 0 }, value: shape(before ?? null), ok: 1 };
  }
  if (before) {
    const after = applyUpdate(before, cmd.update as Document, false);
    coll!.replace(before, after);
    return { lastErrorObject: { n: 1, updatedExisting: true }, value: shape(cmd.new ? after : before), ok: 1 };
  }
  if (!cmd.upsert) return { lastErrorObject: { n: 0, updatedExisting: false }, value: null, ok: 1 };
  const doc = buildUpsert(isPlainObject(cmd.query) ? cmd.query : {}, cmd.update as Document);
  checkId(doc);
  ctx.storage.ensure(ctx.db, name).insert(doc);
  return { lastErrorObject: { n: 1, updatedExisting: false, upserted: doc._id }, value: shape(cmd.new ? copyDoc(doc) : null), ok: 1 };
};

export const writeCommands: Record<string, Handler> = { insert, update, delete: del, findAndModify };
