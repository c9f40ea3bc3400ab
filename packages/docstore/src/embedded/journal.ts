// Durable storage for one collection: a snapshot file plus an append-only operation log.
// Writes are batched (group commit: the operations of one event-loop turn, and those that arrive
// while a batch is being written, go out in one write, in order). An operation is acknowledged
// once its batch is in the log file, so a process killed after the answer (kill -9, OOM) loses
// nothing; like a standalone MongoDB, the log is not fsynced per batch, so a machine that loses
// power may lose the last moments. The log is folded into a new
// snapshot — written to a temp file and renamed, so a crash leaves the old or the new one —
// once it grows past a threshold. Every line carries a sequence number; replay skips lines the
// snapshot already contains, so a crash between the rename and the log truncation is harmless.
// A write that fails (a full disk) fails its batch; the journal then puts the files back to what
// was acknowledged and the collection's memory back to the files, and takes writes again: a disk
// that has room again needs no restart.
import { appendFile, open, readFile, rename, rm, truncate, writeFile, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { EJSON } from 'bson';
import type { Doc } from '../types.js';
import type { NormalizedIndex } from './indexes.js';

type LogOp =
  | { s: number; put: Doc }
  | { s: number; del: string }
  | { s: number; index: NormalizedIndex }
  | { s: number; dropIndex: string };

export interface CollectionState {
  docs: Doc[];
  indexes: NormalizedIndex[];
}

export interface JournalOptions {
  /** Delay before a batch of appends is written (ms); 0: at the end of the event-loop turn. */
  flushDelayMs: number;
  /** Compact when the log holds this many operations more than max(live docs, this). */
  compactAfterOps: number;
}

const encode = (v: unknown): string => EJSON.stringify(v, { relaxed: true });
const decode = (line: string): unknown => EJSON.parse(line, { relaxed: true });

export const snapshotFile = (name: string): string => `${name}.snapshot.jsonl`;
export const logFile = (name: string): string => `${name}.log.jsonl`;

async function readBytes(path: string): Promise<Buffer> {
  try {
    return await readFile(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return Buffer.alloc(0);
    throw err;
  }
}

const lines = (buf: Buffer): string[] => buf.toString('utf8').split('\n');

/**
 * The log's lines, read once. A log whose last line has no newline was cut short (a process
 * killed mid-write, a full disk). Appends must start on a line of their own, so the tail is made
 * whole on disk: a torn line is cut off (it was never acknowledged), a complete one gets its
 * newline.
 */
async function readLogLines(path: string): Promise<string[]> {
  const buf = await readBytes(path);
  if (buf.length === 0 || buf[buf.length - 1] === 0x0a) return lines(buf);
  const keep = buf.lastIndexOf(0x0a) + 1;
  try {
    decode(buf.subarray(keep).toString('utf8'));
  } catch {
    await truncate(path, keep);
    return lines(buf.subarray(0, keep));
  }
  await appendFile(path, '\n');
  return lines(buf);
}

/** Rebuilds a collection from its snapshot and log. A torn last log line (crash mid-append) is dropped. */
export async function loadCollection(dir: string, name: string): Promise<CollectionState & { seq: number }> {
  const docs = new Map<string, Doc>();
  const indexes = new Map<string, NormalizedIndex>();
  let seq = 0;
  const snap = lines(await readBytes(join(dir, snapshotFile(name))));
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
  const log = (await readLogLines(join(dir, logFile(name)))).filter((l) => l !== '');
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

/** Operations handed to the journal and not yet written; `done` settles when they are. */
interface Batch {
  lines: string[];
  done: Promise<void>;
  settle(err?: Error): void;
}

function newBatch(): Batch {
  let settle!: (err?: Error) => void;
  const done = new Promise<void>((resolve, reject) => (settle = (err) => (err ? reject(err) : resolve())));
  done.catch(() => {}); // TTL removals do not wait for theirs; a failure is also kept in `failure`
  return { lines: [], done, settle };
}

/** What the journal persists, and what it restores after a failed write. */
export interface JournalSource {
  count(): number;
  state(): CollectionState;
  /** Replaces the in-memory state with `state` (the files' after a failed write). */
  reset(state: CollectionState): void;
}

/** After a recovery that failed too (the files could not be read), the next try. */
const RECOVERY_RETRY_MS = 1000;

export class Journal {
  private batch: Batch | null = null;
  private opsInLog = 0;
  private scheduled = false;
  private chain: Promise<void> = Promise.resolve();
  private failure: Error | null = null;
  /** The log, open for appending between batches (O_APPEND: still right after a compaction truncates it). */
  private log: FileHandle | null = null;
  /** Bytes of the log that hold acknowledged operations (known once the log is open). */
  private logBytes: number | null = null;
  private recoveryTimer: NodeJS.Timeout | null = null;
  private closed = false;

  constructor(
    private readonly dir: string,
    private readonly name: string,
    private seq: number,
    private readonly source: JournalSource,
    private readonly options: JournalOptions,
  ) {}

  /** Why this collection's storage is not taking writes right now, if it is not (a full disk, say). */
  get failed(): Error | null {
    return this.failure;
  }

  /** Each of these resolves once the operation is in the log file. */
  put(doc: Doc): Promise<void> {
    return this.append({ s: ++this.seq, put: doc });
  }

  del(id: string): Promise<void> {
    return this.append({ s: ++this.seq, del: id });
  }

  index(spec: NormalizedIndex): Promise<void> {
    return this.append({ s: ++this.seq, index: spec });
  }

  /** Writes everything appended so far; rejects if an earlier write failed. */
  async flush(): Promise<void> {
    this.scheduled = false;
    this.chain = this.chain.then(() => this.writeBatch());
    await this.chain;
    if (this.failure) throw this.failure;
  }

  private append(op: LogOp): Promise<void> {
    if (this.failure) throw new Error(`storage for ${this.name} failed earlier: ${this.failure.message}`, { cause: this.failure });
    // Encode now: the document may be changed in memory before the batch is written.
    this.batch ??= newBatch();
    this.batch.lines.push(encode(op));
    if (!this.scheduled) {
      this.scheduled = true;
      const flush = () => void this.flush().catch(() => {});
      if (this.options.flushDelayMs > 0) setTimeout(flush, this.options.flushDelayMs);
      else setImmediate(flush);
    }
    return this.batch.done;
  }

  private async writeBatch(): Promise<void> {
    const batch = this.batch;
    this.batch = null;
    if (!batch) return;
    if (this.failure) return batch.settle(this.failure);
    try {
      if (this.opsInLog + batch.lines.length > Math.max(this.options.compactAfterOps, this.source.count())) {
        await this.compact();
      } else {
        if (!this.log) {
          this.log = await open(join(this.dir, logFile(this.name)), 'a');
          this.logBytes = (await this.log.stat()).size;
        }
        const text = `${batch.lines.join('\n')}\n`;
        // appendFile writes until all is written (write() may take part of it: a full disk).
        await this.log.appendFile(text);
        this.logBytes! += Buffer.byteLength(text);
        this.opsInLog += batch.lines.length;
      }
      batch.settle();
    } catch (err) {
      this.failure = err as Error;
      batch.settle(this.failure);
      await this.recover();
    }
  }

  /**
   * After a failed write: the log cut back to its acknowledged operations (a part-written batch
   * was never acknowledged), a part-written snapshot removed, and the collection's memory, which
   * already held the failed operations (and any queued behind them, refused meanwhile), reloaded
   * from the files. Then writes are taken again; if the disk is still full the next one fails
   * the same way. Cutting and reading need no free space. (Operations folded into a snapshot by
   * a compaction before the failure stay: like any store, a failed write may have happened.)
   */
  private async recover(): Promise<void> {
    if (this.closed) return;
    try {
      await this.closeLog();
      if (this.logBytes !== null) await truncate(join(this.dir, logFile(this.name)), this.logBytes);
      await rm(`${join(this.dir, snapshotFile(this.name))}.tmp`, { force: true });
      const { seq, ...state } = await loadCollection(this.dir, this.name);
      const queued = this.batch;
      this.batch = null;
      queued?.settle(this.failure!);
      this.source.reset(state);
      this.seq = seq;
      this.failure = null;
    } catch {
      // The files cannot be read or cut right now: try again shortly, writes refused until then.
      this.recoveryTimer ??= setTimeout(() => {
        this.recoveryTimer = null;
        this.chain = this.chain.then(() => this.recover());
      }, RECOVERY_RETRY_MS);
      this.recoveryTimer.unref();
    }
  }

  /** Writes what is pending and releases the log file. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.recoveryTimer) clearTimeout(this.recoveryTimer);
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

  /**
   * Folds the current in-memory state (which includes the batch being written) into a new
   * snapshot. Operations that arrive meanwhile go to the next batch, into the emptied log.
   */
  private async compact(): Promise<void> {
    const { docs, indexes } = this.source.state();
    const seq = this.seq;
    const body = `${[encode({ seq, indexes }), ...docs.map(encode)].join('\n')}\n`;
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
    this.logBytes = 0;
    this.opsInLog = 0;
  }
}
