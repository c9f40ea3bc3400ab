// Durable storage for one collection: a snapshot file plus an append-only operation log.
// Writes are batched (appended a few ms later, in order) and the log is folded into a new
// snapshot — written to a temp file and renamed, so a crash leaves the old or the new one —
// once it grows past a threshold. Every line carries a sequence number; replay skips lines the
// snapshot already contains, so a crash between the rename and the log truncation is harmless.
import { open, readFile, rename, writeFile, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { EJSON } from 'bson';
import type { Doc } from '../types.js';
import type { NormalizedIndex } from './indexes.js';

type LogOp = { s: number; put: Doc } | { s: number; del: string } | { s: number; index: NormalizedIndex } | { s: number; dropIndex: string };

export interface CollectionState {
  docs: Doc[];
  indexes: NormalizedIndex[];
}

export interface JournalOptions {
  /** Delay before a batch of appends is written (ms). */
  flushDelayMs: number;
  /** Compact when the log holds this many operations more than max(live docs, this). */
  compactAfterOps: number;
}

const encode = (v: unknown): string => EJSON.stringify(v, { relaxed: true });
const decode = (line: string): unknown => EJSON.parse(line, { relaxed: true });

export const snapshotFile = (name: string): string => `${name}.snapshot.jsonl`;
export const logFile = (name: string): string => `${name}.log.jsonl`;

async function readLines(path: string): Promise<string[]> {
  try {
    return (await readFile(path, 'utf8')).split('\n');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
}

/** Rebuilds a collection from its snapshot and log. A torn last log line (crash mid-append) is ignored. */
export async function loadCollection(dir: string, name: string): Promise<CollectionState & { seq: number }> {
  const docs = new Map<string, Doc>();
  const indexes = new Map<string, NormalizedIndex>();
  let seq = 0;
  const snap = await readLines(join(dir, snapshotFile(name)));
  if (snap[0]) {
    const header = decode(snap[0]) as { seq: number; indexes: NormalizedIndex[] };
    seq = header.seq;
    for (const ix of header.indexes) indexes.set(ix.name, ix);
    for (const line of snap.slice(1)) {
      if (!line) continue;
      const doc = decode(line) as Doc;
      docs.set(doc._id, doc);
    }
  }
  const log = (await readLines(join(dir, logFile(name)))).filter((l) => l !== '');
  log.forEach((line, i) => {
    let op: LogOp;
    try {
      op = decode(line) as LogOp;
    } catch (err) {
      if (i === log.length - 1) return;
      throw new Error(`corrupt log ${logFile(name)} line ${i + 1}: ${(err as Error).message}`);
    }
    if (op.s <= seq) return;
    seq = op.s;
    // Map.set keeps a replaced document in place, matching the in-memory (insertion) order.
    if ('put' in op) docs.set(op.put._id, op.put);
    else if ('del' in op) docs.delete(op.del);
    else if ('index' in op) indexes.set(op.index.name, op.index);
    else indexes.delete(op.dropIndex);
  });
  return { docs: [...docs.values()], indexes: [...indexes.values()], seq };
}

export class Journal {
  private buffer: string[] = [];
  private opsInLog = 0;
  private timer: NodeJS.Timeout | null = null;
  private chain: Promise<void> = Promise.resolve();
  private failure: Error | null = null;
  /** The log, open for appending between batches (O_APPEND: still right after a compaction truncates it). */
  private log: FileHandle | null = null;

  constructor(
    private readonly dir: string,
    private readonly name: string,
    private seq: number,
    private readonly source: { count(): number; state(): CollectionState },
    private readonly options: JournalOptions,
  ) {}

  put(doc: Doc): void {
    this.append({ s: ++this.seq, put: doc });
  }

  del(id: string): void {
    this.append({ s: ++this.seq, del: id });
  }

  index(spec: NormalizedIndex): void {
    this.append({ s: ++this.seq, index: spec });
  }

  /** Writes everything appended so far; rejects if an earlier write failed. */
  async flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.chain = this.chain.then(() => this.writeBatch());
    await this.chain;
    if (this.failure) throw this.failure;
  }

  private append(op: LogOp): void {
    if (this.failure) throw new Error(`storage for ${this.name} failed earlier: ${this.failure.message}`);
    // Encode now: the document may be changed in memory before the batch is written.
    this.buffer.push(encode(op));
    this.timer ??= setTimeout(() => void this.flush().catch(() => {}), this.options.flushDelayMs);
  }

  private async writeBatch(): Promise<void> {
    if (this.buffer.length === 0 || this.failure) return;
    try {
      if (this.opsInLog + this.buffer.length > Math.max(this.options.compactAfterOps, this.source.count())) {
        await this.compact();
        return;
      }
      const lines = this.buffer;
      this.buffer = [];
      this.log ??= await open(join(this.dir, logFile(this.name)), 'a');
      await this.log.write(lines.join('\n') + '\n');
      this.opsInLog += lines.length;
    } catch (err) {
      this.failure = err as Error;
      await this.closeLog();
    }
  }

  /** Writes what is pending and releases the log file. */
  async close(): Promise<void> {
    try {
      await this.flush();
    } finally {
      this.chain = this.chain.then(() => this.closeLog());
      await this.chain;
    }
  }

  private async closeLog(): Promise<void> {
    const fh = this.log;
    this.log = null;
    await fh?.close().catch(() => {});
  }

  /** Folds the current in-memory state (which includes every buffered op) into a new snapshot. */
  private async compact(): Promise<void> {
    const { docs, indexes } = this.source.state();
    const seq = this.seq;
    this.buffer = [];
    const body = [encode({ seq, indexes }), ...docs.map(encode)].join('\n') + '\n';
    const path = join(this.dir, snapshotFile(this.name));
    const tmp = `${path}.tmp`;
    const fh = await open(tmp, 'w');
    try {
      await fh.write(body);
      await fh.sync();
    } finally {
      await fh.close();
    }
    await rename(tmp, path);
    await writeFile(join(this.dir, logFile(this.name)), '');
    this.opsInLog = 0;
  }
}
