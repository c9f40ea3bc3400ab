// Read commands: find, getMore, killCursors, count, distinct and a small aggregate.
import type { Document } from 'bson';
import { Aggregator } from 'mingo';
import { CommandError, notImplemented } from '../errors.js';
import { MINGO_OPTIONS, match, nonNegative, project, rejectUnsupported, sortDocs } from '../query.js';
import { isPlainObject, keyOf, pathValues } from '../values.js';
import { target, type Handler } from './context.js';

const find: Handler = (cmd, ctx) => {
  const name = target(cmd, 'find');
  rejectUnsupported(cmd, ['collation', 'tailable', 'awaitData', 'min', 'max', 'returnKey', 'showRecordId', 'let', 'oplogReplay']);
  let docs = sortDocs(match(ctx.storage.get(ctx.db, name), cmd.filter), cmd.sort);
  const skip = nonNegative(cmd.skip, 'skip');
  const limit = nonNegative(cmd.limit, 'limit');
  docs = docs.slice(skip, limit > 0 ? skip + limit : undefined);
  docs = project(docs, cmd.projection);
  return ctx.cursors.reply(`${ctx.db}.${name}`, docs, { batchSize: cmd.batchSize, singleBatch: cmd.singleBatch === true });
};

const count: Handler = (cmd, ctx) => {
  const name = target(cmd, 'count');
  rejectUnsupported(cmd, ['collation']);
  const docs = match(ctx.storage.get(ctx.db, name), cmd.query);
  const skip = nonNegative(cmd.skip, 'skip');
  const limit = Math.abs(Number(cmd.limit ?? 0));
  const n = Math.max(0, docs.length - skip);
  return { n: limit > 0 ? Math.min(n, limit) : n, ok: 1 };
};

const distinct: Handler = (cmd, ctx) => {
  const name = target(cmd, 'distinct');
  if (typeof cmd.key !== 'string') throw new CommandError(14, "BSON field 'distinct.key' is missing or not a string");
  const seen = new Map<string, unknown>();
  for (const doc of match(ctx.storage.get(ctx.db, name), cmd.query)) {
    for (const v of pathValues(doc, cmd.key)) if (v !== undefined) seen.set(keyOf(v), v);
  }
  return { values: [...seen.values()], ok: 1 };
};

// Stages whose mingo implementation matches MongoDB for plain documents.
const STAGES = new Set([
  '$match',
  '$sort',
  '$skip',
  '$limit',
  '$project',
  '$group',
  '$count',
  '$unwind',
  '$addFields',
  '$set',
  '$unset',
  '$replaceRoot',
  '$sortByCount',
]);

const aggregate: Handler = (cmd, ctx) => {
  if (typeof cmd.aggregate !== 'string') throw notImplemented('database-level aggregate');
  const name = cmd.aggregate;
  if (!Array.isArray(cmd.pipeline)) throw new CommandError(14, "'pipeline' option must be specified as an array");
  if (!isPlainObject(cmd.cursor) && !cmd.explain)
    throw new CommandError(9, "The 'cursor' option is required, except for aggregate with the explain argument");
  rejectUnsupported(cmd, ['explain', 'collation', 'let']);
  const pipeline = cmd.pipeline as Document[];
  for (const stage of pipeline) {
    const op = isPlainObject(stage) ? Object.keys(stage) : [];
    if (op.length !== 1) throw new CommandError(40323, 'A pipeline stage specification object must contain exactly one field.');
    if (!STAGES.has(op[0]!)) throw notImplemented(`the aggregation stage ${op[0]}`);
  }
  // $match first goes through the same matcher as find, so both agree on semantics.
  let docs = match(ctx.storage.get(ctx.db, name), {});
  let rest = pipeline;
  if (pipeline[0]?.$match) {
    docs = match(ctx.storage.get(ctx.db, name), pipeline[0].$match);
    rest = pipeline.slice(1);
  }
  let out: Document[];
  try {
    out = rest.length ? new Aggregator(rest, MINGO_OPTIONS).run(docs) : docs;
  } catch (err) {
    throw new CommandError(2, (err as Error).message);
  }
  return ctx.cursors.reply(`${ctx.db}.${name}`, out, { batchSize: (cmd.cursor as Document | undefined)?.batchSize });
};

export const readCommands: Record<string, Handler> = {
  find,
  getMore: (cmd, ctx) => ctx.cursors.getMore(cmd, ctx.db),
  killCursors: (cmd, ctx) => ctx.cursors.kill(cmd),
  count,
  distinct,
  aggregate,
};
