// The small collection interface every repository is written against, once.
// Two engines implement it: an embedded one (persistent under DATA_DIR) and MongoDB's driver.
// Filters and updates use MongoDB's query language (the embedded engine evaluates them with mingo).

export type Doc = { _id: string } & Record<string, unknown>;

/** A MongoDB-style filter, e.g. { accountId: 'a', status: { $in: ['pending'] } }. */
export type Filter = Record<string, unknown>;

/** Supported update operators: $set, $unset, $inc, $setOnInsert, $push (with $each), $pull. */
export type Update = {
  $set?: Record<string, unknown>;
  $unset?: Record<string, unknown>;
  $inc?: Record<string, number>;
  $setOnInsert?: Record<string, unknown>;
  $push?: Record<string, unknown>;
  $pull?: Record<string, unknown>;
};

export type Sort = Record<string, 1 | -1>;

export interface FindOptions {
  sort?: Sort;
  skip?: number;
  limit?: number;
}

export interface FindOneAndUpdateOptions {
  upsert?: boolean;
  /** Which version to return; default 'after'. */
  returnDocument?: 'before' | 'after';
  sort?: Sort;
}

export interface IndexSpec {
  keys: Record<string, 1 | -1>;
  unique?: boolean;
  /** TTL index: documents are removed once `Date` field (the single key) is older than this. 0 = at that instant. */
  expireAfterSeconds?: number;
  name?: string;
}

/** Thrown by insertOne / updates / upserts that would break a unique index (MongoDB code 11000). */
export class DuplicateKeyError extends Error {
  readonly code = 11000;
  constructor(message = 'duplicate key') {
    super(message);
    this.name = 'DuplicateKeyError';
  }
}

export interface Collection<T extends Doc> {
  readonly name: string;
  createIndex(spec: IndexSpec): Promise<void>;
  insertOne(doc: T): Promise<void>;
  findOne(filter: Filter, options?: { sort?: Sort }): Promise<T | null>;
  find(filter: Filter, options?: FindOptions): Promise<T[]>;
  countDocuments(filter: Filter): Promise<number>;
  /** Atomic single-document read-modify-write; returns null when nothing matched and no upsert. */
  findOneAndUpdate(filter: Filter, update: Update, options?: FindOneAndUpdateOptions): Promise<T | null>;
  /** Returns how many documents matched. */
  updateMany(filter: Filter, update: Update): Promise<number>;
  /** Returns whether a document was deleted. */
  deleteOne(filter: Filter): Promise<boolean>;
  /** Returns how many documents were deleted. */
  deleteMany(filter: Filter): Promise<number>;
}

export interface CollectionOptions {
  /**
   * Embedded engine only: false keeps the collection in memory (e.g. rate-limit counters that
   * need no durability). MongoDB ignores it.
   */
  persistent?: boolean;
}

/** One database (one per service). */
export interface DocStore {
  collection<T extends Doc>(name: string, options?: CollectionOptions): Collection<T>;
  /** Cheap liveness check for health probes. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

export interface OpenDocStoreOptions {
  /** When set, MongoDB through the official driver; otherwise the embedded engine. */
  mongoUrl?: string;
  /** Database name (MongoDB) or sub-directory of dataDir (embedded). */
  database: string;
  /** Embedded engine: where the files live. */
  dataDir: string;
}
