// The embedded DocStore: one directory per database, one snapshot + log pair per collection.
// Everything is loaded into memory at open; a background timer applies TTL indexes.
import { mkdir, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Collection, CollectionOptions, Doc, DocStore } from '../types.js';
import { EmbeddedCollection } from './collection.js';
import { Journal, loadCollection, type JournalOptions } from './journal.js';

export interface EmbeddedDocStoreOptions {
  dataDir: string;
  database: string;
  /** How often expired TTL documents are removed (ms). Default 1000. */
  ttlIntervalMs?: number;
  /** Delay that batches log appends (ms). Default 10. */
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
  private closed = false;

  constructor(
    private readonly dir: string,
    private readonly journalOptions: JournalOptions,
    ttlIntervalMs: number,
  ) {
    this.timer = setInterval(() => this.expire(), ttlIntervalMs);
    this.timer.unref();
  }

  readonly assertOpen = (): void => {
    if (this.closed) throw new Error('DocStore is closed');
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

  async ping(): Promise<void> {
    this.assertOpen();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.timer);
    await Promise.all([...this.collections.values()].map((c) => c.journal?.close()));
  }

  private expire(): void {
    const now = Date.now();
    for (const coll of this.collections.values()) coll.expire(now);
  }
}

export async function openEmbeddedDocStore(options: EmbeddedDocStoreOptions): Promise<DocStore> {
  checkName('database', options.database);
  const dir = join(options.dataDir, options.database);
  await mkdir(dir, { recursive: true });
  const store = new EmbeddedDocStore(
    dir,
    { flushDelayMs: options.flushDelayMs ?? 10, compactAfterOps: options.compactAfterOps ?? 10_000 },
    options.ttlIntervalMs ?? 1000,
  );
  const names = new Set<string>();
  for (const file of await readdir(dir)) {
    const m = FILE.exec(file);
    if (m) names.add(m[1]!);
  }
  for (const name of names) await store.load(name);
  return store;
}
