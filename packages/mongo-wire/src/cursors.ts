// Server-side cursors: find/aggregate/list results are materialised once and paged out by getMore.
import { BSON, Long, type Document } from 'bson';
import { CommandError } from './errors.js';

const DEFAULT_FIRST_BATCH = 101;
const MAX_BATCH_BYTES = 16 * 1024 * 1024 - 64 * 1024; // stay under maxBsonObjectSize with the envelope

interface OpenCursor {
  ns: string;
  docs: Document[];
  pos: number;
}

function batchSizeOf(v: unknown): number | undefined {
  if (v === undefined || v === null) return undefined;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new CommandError(2, `BatchSize value must be non-negative, but received: ${String(v)}`);
  return n === 0 ? undefined : n;
}

export class Cursors {
  private readonly open = new Map<string, OpenCursor>();
  private nextId = 1;

  private take(cursor: OpenCursor, batchSize: number | undefined): Document[] {
    const batch: Document[] = [];
    let bytes = 0;
    while (cursor.pos < cursor.docs.length && (batchSize === undefined || batch.length < batchSize)) {
      const doc = cursor.docs[cursor.pos]!;
      bytes += BSON.calculateObjectSize(doc);
      if (batch.length > 0 && bytes > MAX_BATCH_BYTES) break;
      batch.push(doc);
      cursor.pos++;
    }
    return batch;
  }

  /** The reply to a command that returns a cursor (find, aggregate, listIndexes...). */
  reply(ns: string, docs: Document[], options: { batchSize?: unknown; singleBatch?: boolean } = {}): Document {
    const cursor: OpenCursor = { ns, docs, pos: 0 };
    const firstBatch = options.batchSize === 0 ? [] : this.take(cursor, batchSizeOf(options.batchSize) ?? DEFAULT_FIRST_BATCH);
    let id = Long.ZERO;
    if (!options.singleBatch && cursor.pos < docs.length) {
      id = Long.fromNumber(this.nextId++);
      this.open.set(id.toString(), cursor);
    }
    return { cursor: { firstBatch, id, ns }, ok: 1 };
  }

  getMore(cmd: Document, db: string): Document {
    const id = Long.isLong(cmd.getMore) ? (cmd.getMore as Long) : Long.fromValue(cmd.getMore as number);
    const cursor = this.open.get(id.toString());
    const ns = `${db}.${String(cmd.collection)}`;
    if (!cursor) throw new CommandError(43, `cursor id ${id.toString()} not found`);
    if (cursor.ns !== ns)
      throw new CommandError(13, `Requested getMore on namespace '${ns}', but cursor belongs to a different namespace ${cursor.ns}`);
    const nextBatch = this.take(cursor, batchSizeOf(cmd.batchSize));
    const done = cursor.pos >= cursor.docs.length;
    if (done) this.open.delete(id.toString());
    return { cursor: { nextBatch, id: done ? Long.ZERO : id, ns }, ok: 1 };
  }

  kill(cmd: Document): Document {
    const killed: Long[] = [];
    const notFound: Long[] = [];
    for (const raw of (cmd.cursors as unknown[]) ?? []) {
      const id = Long.isLong(raw) ? raw : Long.fromValue(raw as number);
      (this.open.delete(id.toString()) ? killed : notFound).push(id);
    }
    return { cursorsKilled: killed, cursorsNotFound: notFound, cursorsAlive: [], cursorsUnknown: [], ok: 1 };
  }

  clear(): void {
    this.open.clear();
  }
}
