// A Collection on the official MongoDB driver. Filters and updates are MongoDB's own language, so
// this layer only maps options, result shapes and duplicate-key errors.
import { ObjectId, type Collection as DriverCollection, type Document } from 'mongodb';
import {
  DuplicateKeyError,
  type Collection,
  type Doc,
  type Filter,
  type FindOneAndUpdateOptions,
  type FindOptions,
  type IndexSpec,
  type Sort,
  type Update,
} from '../types.js';

function isDuplicateKey(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { code?: unknown }).code === 11000;
}

/** Runs a driver call, turning E11000 into DuplicateKeyError. */
async function mapErrors<R>(fn: () => Promise<R>): Promise<R> {
  try {
    return await fn();
  } catch (err) {
    if (isDuplicateKey(err)) throw new DuplicateKeyError((err as Error).message);
    throw err;
  }
}

/**
 * Whether an upsert with this filter takes _id from it: MongoDB seeds the new document from
 * equality conditions (literal, $eq or a one-element $in), at the top level or inside $and.
 */
function filterFixesId(filter: Filter): boolean {
  if ('_id' in filter) {
    const id = filter._id;
    if (id instanceof RegExp) return false;
    if (id === null || typeof id !== 'object' || id instanceof Date || Array.isArray(id)) return true;
    const ops = id as Record<string, unknown>;
    if (!Object.keys(ops).some((k) => k.startsWith('$'))) return true;
    if ('$eq' in ops || (Array.isArray(ops.$in) && ops.$in.length === 1)) return true;
  }
  const and = filter.$and;
  return Array.isArray(and) && and.some((f) => typeof f === 'object' && f !== null && filterFixesId(f as Filter));
}

export class MongoCollection<T extends Doc> implements Collection<T> {
  constructor(private readonly coll: DriverCollection<Document>) {}

  get name(): string {
    return this.coll.collectionName;
  }

  async createIndex(spec: IndexSpec): Promise<void> {
    await mapErrors(() =>
      this.coll.createIndex(spec.keys, {
        ...(spec.unique !== undefined ? { unique: spec.unique } : {}),
        ...(spec.expireAfterSeconds !== undefined ? { expireAfterSeconds: spec.expireAfterSeconds } : {}),
        ...(spec.name !== undefined ? { name: spec.name } : {}),
      }),
    );
  }

  async insertOne(doc: T): Promise<void> {
    // The driver adds _id to the object it is given; hand it a shallow copy instead.
    await mapErrors(() => this.coll.insertOne({ ...(doc as Document) }));
  }

  async findOne(filter: Filter, options?: { sort?: Sort }): Promise<T | null> {
    return (await this.coll.findOne(filter, options?.sort ? { sort: options.sort } : {})) as unknown as T | null;
  }

  async find(filter: Filter, options: FindOptions = {}): Promise<T[]> {
    let cursor = this.coll.find(filter);
    if (options.sort) cursor = cursor.sort(options.sort);
    if (options.skip) cursor = cursor.skip(options.skip);
    if (options.limit) cursor = cursor.limit(options.limit);
    return (await cursor.toArray()) as unknown as T[];
  }

  async countDocuments(filter: Filter): Promise<number> {
    return this.coll.countDocuments(filter);
  }

  async findOneAndUpdate(filter: Filter, update: Update, options: FindOneAndUpdateOptions = {}): Promise<T | null> {
    let upd: Update = update;
    if (options.upsert && !filterFixesId(filter) && update.$setOnInsert?._id === undefined && update.$set?._id === undefined) {
      // Documents have string ids: give an upsert one rather than let the server make an ObjectId.
      upd = { ...update, $setOnInsert: { ...update.$setOnInsert, _id: new ObjectId().toHexString() } };
    }
    return mapErrors(
      async () =>
        (await this.coll.findOneAndUpdate(filter, upd as Document, {
          upsert: options.upsert ?? false,
          returnDocument: options.returnDocument ?? 'after',
          ...(options.sort ? { sort: options.sort } : {}),
        })) as unknown as T | null,
    );
  }

  async updateMany(filter: Filter, update: Update): Promise<number> {
    return mapErrors(async () => (await this.coll.updateMany(filter, update as Document)).matchedCount);
  }

  async deleteOne(filter: Filter): Promise<boolean> {
    return (await this.coll.deleteOne(filter)).deletedCount === 1;
  }

  async deleteMany(filter: Filter): Promise<number> {
    return (await this.coll.deleteMany(filter)).deletedCount;
  }
}
