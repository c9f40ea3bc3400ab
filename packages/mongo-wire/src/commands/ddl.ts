// Collection and index commands: createIndexes, listIndexes, dropIndexes, create, drop,
// listCollections, dropDatabase, listDatabases.
import type { Document } from 'bson';
import { Query } from 'mingo';
import { CommandError, notImplemented } from '../errors.js';
import { MINGO_OPTIONS } from '../query.js';
import type { IndexSpec, WireCollection } from '../storage.js';
import { isPlainObject, keyOf } from '../values.js';
import { target, type Handler } from './context.js';

const INDEX_OPTIONS = new Set(['key', 'name', 'unique', 'expireAfterSeconds', 'v', 'background', 'ns']);

function parseIndex(raw: unknown): IndexSpec {
  if (!isPlainObject(raw) || !isPlainObject(raw.key) || Object.keys(raw.key).length === 0) {
    throw new CommandError(2, 'index specification must have a non-empty key document');
  }
  for (const opt of Object.keys(raw)) if (!INDEX_OPTIONS.has(opt)) throw notImplemented(`the index option '${opt}'`);
  for (const [field, dir] of Object.entries(raw.key)) {
    if (dir !== 1 && dir !== -1) throw notImplemented(`index type ${JSON.stringify(dir)} on '${field}'`);
  }
  if (typeof raw.name !== 'string' || raw.name === '')
    throw new CommandError(9, "The 'name' field is a required property of an index specification");
  const spec: IndexSpec = { v: 2, key: raw.key as Record<string, number>, name: raw.name };
  if (raw.unique === true) spec.unique = true;
  if (raw.expireAfterSeconds !== undefined) {
    const s = Number(raw.expireAfterSeconds);
    if (!Number.isFinite(s) || s < 0) throw new CommandError(67, 'TTL index expireAfterSeconds must be a non-negative number');
    if (Object.keys(spec.key).length !== 1)
      throw new CommandError(67, 'TTL indexes are single-field indexes, compound indexes do not support TTL');
    spec.expireAfterSeconds = s;
  }
  return spec;
}

const sameOptions = (a: IndexSpec, b: IndexSpec): boolean => a.unique === b.unique && a.expireAfterSeconds === b.expireAfterSeconds;

const createIndexes: Handler = (cmd, ctx) => {
  const name = target(cmd, 'createIndexes');
  if (!Array.isArray(cmd.indexes) || cmd.indexes.length === 0) throw new CommandError(2, 'Must specify at least one index to create');
  const specs = cmd.indexes.map(parseIndex);
  const existed = ctx.storage.get(ctx.db, name) !== undefined;
  const coll = ctx.storage.ensure(ctx.db, name);
  const before = coll.indexes.length;
  for (const spec of specs) {
    const sameName = coll.indexes.find((ix) => ix.name === spec.name);
    const sameKey = coll.indexes.find((ix) => keyOf(ix.key) === keyOf(spec.key));
    if (sameName && keyOf(sameName.key) !== keyOf(spec.key)) {
      throw new CommandError(
        86,
        `An existing index has the same name as the requested index. Requested index: ${JSON.stringify(spec)}, existing index: ${JSON.stringify(sameName)}`,
      );
    }
    if (sameKey) {
      if (sameKey.name !== spec.name) throw new CommandError(85, `Index already exists with a different name: ${sameKey.name}`);
      if (!sameOptions(sameKey, spec))
        throw new CommandError(85, `An existing index has the same name as the requested index but different options: ${sameKey.name}`);
      continue; // identical: createIndexes is idempotent
    }
    coll.addIndex(spec);
  }
  const after = coll.indexes.length;
  return {
    numIndexesBefore: before,
    numIndexesAfter: after,
    createdCollectionAutomatically: !existed,
    ...(before === after ? { note: 'all indexes already exist' } : {}),
    ok: 1,
  };
};

function mustExist(coll: WireCollection | undefined, ns: string): WireCollection {
  if (!coll) throw new CommandError(26, `ns does not exist: ${ns}`);
  return coll;
}

const listIndexes: Handler = (cmd, ctx) => {
  const name = target(cmd, 'listIndexes');
  const coll = mustExist(ctx.storage.get(ctx.db, name), `${ctx.db}.${name}`);
  return ctx.cursors.reply(
    coll.ns,
    coll.indexes.map((ix) => ({ ...ix })),
    { batchSize: (cmd.cursor as Document | undefined)?.batchSize },
  );
};

const dropIndexes: Handler = (cmd, ctx) => {
  const name = target(cmd, 'dropIndexes');
  const coll = mustExist(ctx.storage.get(ctx.db, name), `${ctx.db}.${name}`);
  const was = coll.indexes.length;
  const which = cmd.index;
  const names =
    which === '*'
      ? coll.indexes.slice(1).map((ix) => ix.name)
      : typeof which === 'string'
        ? [which]
        : Array.isArray(which)
          ? which.map(String)
          : isPlainObject(which)
            ? [coll.indexes.find((ix) => keyOf(ix.key) === keyOf(which))?.name ?? `<${JSON.stringify(which)}>`]
            : [];
  if (names.includes('_id_')) throw new CommandError(72, 'cannot drop _id index');
  for (const n of names) coll.dropIndex(n);
  return { nIndexesWas: was, ok: 1 };
};

const create: Handler = (cmd, ctx) => {
  const name = target(cmd, 'create');
  for (const opt of ['capped', 'timeseries', 'clusteredIndex', 'validator', 'viewOn', 'collation', 'changeStreamPreAndPostImages']) {
    if (cmd[opt] !== undefined && cmd[opt] !== false) throw notImplemented(`the create option '${opt}'`);
  }
  if (ctx.storage.get(ctx.db, name)) throw new CommandError(48, `Collection ${ctx.db}.${name} already exists.`);
  ctx.storage.ensure(ctx.db, name);
  return { ok: 1 };
};

const drop: Handler = (cmd, ctx) => {
  const name = target(cmd, 'drop');
  const dropped = ctx.storage.drop(ctx.db, name);
  // MongoDB 7 answers ok for a collection that does not exist.
  return dropped ? { nIndexesWas: dropped.indexes.length, ns: dropped.ns, ok: 1 } : { ok: 1 };
};

const listCollections: Handler = (cmd, ctx) => {
  const entries = ctx.storage.collections(ctx.db).map((c) => ({
    name: c.name,
    type: 'collection',
    options: {},
    info: { readOnly: false },
    idIndex: { v: 2, key: { _id: 1 }, name: '_id_' },
  }));
  const filter = isPlainObject(cmd.filter) ? new Query(cmd.filter, MINGO_OPTIONS) : null;
  const out = entries.filter((e) => !filter || filter.test(e)).map((e) => (cmd.nameOnly ? { name: e.name, type: e.type } : e));
  return ctx.cursors.reply(`${ctx.db}.$cmd.listCollections`, out, { batchSize: (cmd.cursor as Document | undefined)?.batchSize });
};

const dropDatabase: Handler = (_cmd, ctx) => {
  ctx.storage.dropDatabase(ctx.db);
  return { dropped: ctx.db, ok: 1 };
};

const listDatabases: Handler = (cmd, ctx) => {
  const dbs = ctx.storage.databaseNames().map((name) => ({ name, sizeOnDisk: 0, empty: ctx.storage.collections(name).length === 0 }));
  return cmd.nameOnly ? { databases: dbs.map((d) => ({ name: d.name })), ok: 1 } : { databases: dbs, totalSize: 0, totalSizeMb: 0, ok: 1 };
};

export const ddlCommands: Record<string, Handler> = {
  createIndexes,
  listIndexes,
  dropIndexes,
  create,
  drop,
  listCollections,
  dropDatabase,
  listDatabases,
};
