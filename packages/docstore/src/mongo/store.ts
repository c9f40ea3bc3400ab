// The MongoDB DocStore: one MongoClient, one database (options.database).
import { MongoClient, type Db } from 'mongodb';
import type { Collection, Doc, DocStore } from '../types.js';
import { MongoCollection } from './collection.js';

export interface MongoDocStoreOptions {
  url: string;
  database: string;
  /**
   * How long to wait for a reachable server before an operation fails. Default 2500 ms: with
   * MongoDB down the first calls fail within that (503), then the breaker answers at once.
   */
  serverSelectionTimeoutMS?: number;
  /**
   * How long an operation waits for the server's reply before it fails as an outage (503).
   * Without it a frozen server (connections open, no replies) holds every request forever.
   * Default 10 s; `socketTimeoutMS` in the URL wins, for deployments with longer operations.
   */
  socketTimeoutMS?: number;
}

const DEFAULT_SOCKET_TIMEOUT_MS = 10_000;
const CONNECT_TIMEOUT_MS = 5_000;

class MongoDocStore implements DocStore {
  private readonly db: Db;
  private readonly collections = new Map<string, MongoCollection<Doc>>();

  constructor(
    private readonly client: MongoClient,
    database: string,
  ) {
    this.db = client.db(database);
  }

  collection<T extends Doc>(name: string): Collection<T> {
    let coll = this.collections.get(name);
    if (!coll) {
      coll = new MongoCollection<Doc>(this.db.collection(name));
      this.collections.set(name, coll);
    }
    return coll as unknown as Collection<T>;
  }

  async ping(): Promise<void> {
    await this.db.command({ ping: 1 });
  }

  async close(): Promise<void> {
    await this.client.close();
  }
}

/** Connects (failing after serverSelectionTimeoutMS when no server answers) and returns the store. */
export async function openMongoDocStore(options: MongoDocStoreOptions): Promise<DocStore> {
  const inUrl = (name: string) => new RegExp(`[?&]${name}=`, 'i').test(options.url);
  const client = new MongoClient(options.url, {
    serverSelectionTimeoutMS: options.serverSelectionTimeoutMS ?? 2500,
    ...(inUrl('socketTimeoutMS') ? {} : { socketTimeoutMS: options.socketTimeoutMS ?? DEFAULT_SOCKET_TIMEOUT_MS }),
    ...(inUrl('connectTimeoutMS') ? {} : { connectTimeoutMS: CONNECT_TIMEOUT_MS }),
  });
  await client.connect();
  return new MongoDocStore(client, options.database);
}
