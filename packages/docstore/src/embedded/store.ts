// The embedded DocStore: one directory per database, one snapshot + log pair per collection.
// Everything is loaded into memory at open; a background timer applies TTL indexes.
import { mkdir, readdir, realpath } from 'node:fs/promises';
import { join } from 'node:path';
import type { Collection, CollectionOptions, Doc, DocStore } from '../types.js';
import { EmbeddedCollection } from './collection.js';
import { lockDirectory } from './dir-lock.js';
import { Journal, loadCollection, type JournalOptions } from './journal.js';

export interface EmbeddedDocStoreOptions {
  dataDir: string;
  database: string;
  /** How often expired TTL documents are removed (ms). Default 1000. */
  ttlIntervalMs?: number;
  /** Called after each TTL sweep (tests count sweeps instead of waiting a while). */
  onSweep?: () => void;
  /** Delay that batches log appends (ms). Default 0: the operations of one event-loop turn. */
  flushDelayMs?: number;
  /** Log length (operations) that triggers compaction, at least the live document count. Default 10000. */
  compactAfterOps?: number;
}

const NAME = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,119}$/;
const FILE = /^(.+)\.(snapshot|log)\.jsonl$/;

function checkName(kind: string, name: string): void {
  // Names become file and directory names: keep them to a safe alphabet.
  if (!NAME.test(name) || name.includes('..')) throw new Error(`invalid ${kind} name '${name}'`);
}

class EmbeddedDocStore implements DocStore {
  private readonly collections = new Map<string, EmbeddedCollection<Doc>>();
  private readonly timer: NodeJS.Timeout;
  /** Set by the first close(); the store is closed from then on. */
  private closing: Promise<void> | null = null;

  constructor(
    private readonly dir: string,
    private readonly journalOptions: JournalOptions,
    ttlIntervalMs: number,
    private readonly unlock: () => Promise<void>,
    private readonly onSweep?: () => void,
  ) {
    this.timer = setInterval(() => this.expire(), ttlIntervalMs);
    this.timer.unref();
  }

  readonly assertOpen = (): void => {
    if (this.closing) throw new Error('DocStore is closed');
  };

  /** Loads a collection found on disk at open. */
  async load(name: string): Promise<void> {
    const { seq, ...state } = await loadCollection(this.dir, name);
    const coll = new EmbeddedCollection<Doc>(name, this.assertOpen);
    coll.restore(state);
    coll.journal = new Journal(this.dir, name, seq, coll, this.journalOptions);
    this.collections.set(name, coll);
  }

  collection<T extends Doc>(name: string, options: CollectionOptions = {}): Collection<T> {
    this.assertOpen();
    let coll = this.collections.get(name);
    if (!coll) {
      checkName('collection', name);
      coll = new EmbeddedCollection<Doc>(name, this.assertOpen);
      if (options.persistent !== false) coll.journal = new Journal(this.dir, name, 0, coll, this.journalOptions);
      this.collections.set(name, coll);
    }
    return coll as unknown as Collection<T>;
  }

  /** Fails once any collection's storage has (health then says NOT_SERVING, so it is seen). */
  async ping(): Promise<void> {
    this.assertOpen();
    for (const coll of this.collections.values()) {
      const failed = coll.journal?.failed;
      if (failed) throw new Error(`storage for ${coll.name} failed: ${failed.message}`);
    }
  }

  close(): Promise<void> {
    this.closing ??= this.shut();
    return this.closing;
  }

  private async shut(): Promise<void> {
    clearInterval(this.timer);
    // Every journal finishes (or fails) before the lock goes: a process starting next must not
    // load a folder still being written.
    const results = await Promise.allSettled([...this.collections.values()].map((c) => c.journal?.close()));
    await this.unlock();
    const failed = results.find((r) => r.status === 'rejected');
    if (failed) throw failed.reason;
  }

  private expire(): void {
    const now = Date.now();
    for (const coll of this.collections.values()) {
      try {
        coll.expire(now);
      } catch {
        // The collection's storage failed earlier (a full disk, say); its writes report that.
      }
    }
    this.onSweep?.();
  }
}

export async function openEmbeddedDocStore(options: EmbeddedDocStoreOptions): Promise<DocStore> {
  checkName('database', options.database);
  await mkdir(join(options.dataDir, options.database), { recursive: true });
  const dir = await realpath(join(options.dataDir, options.database));
  const unlock = await lockDirectory(dir);
  const store = new EmbeddedDocStore(
    dir,
    { flushDelayMs: options.flushDelayMs ?? 0, compactAfterOps: options.compactAfterOps ?? 10_000 },
    options.ttlIntervalMs ?? 1000,
    unlock,
    options.onSweep,
  );
  try {
    const names = new Set<string>();
    for (const file of await readdir(dir)) {
      const m = FILE.exec(file);
      if (m) names.add(m[1]!);
    }
    for (const name of names) await store.load(name);
  } catch (err) {
    await store.close();
    throw err;
  }
  return store;
}
