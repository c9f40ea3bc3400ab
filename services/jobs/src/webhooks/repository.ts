// Persistence of deliveries. Every state change is one atomic findOneAndUpdate, so several Jobs
// replicas can share the collection: an attempt is claimed by exactly one of them (the claim
// pushes nextAttemptAt to the end of its lease, hiding it from the others), and a replica that
// crashed mid-attempt simply lets its lease lapse.
import { type Collection, type DocStore, DuplicateKeyError } from '@media/docstore';
import type { TraceCarrier } from '@media/platform';
import type { DeliveryDoc, WebhookDeliveryStatus } from './types.js';

export const WEBHOOK_DELIVERIES = 'webhook_deliveries';

export interface Claim {
  doc: DeliveryDoc;
  /** Identifies this attempt in the outcome write: this owner and this attempt number. */
  owner: string;
  attempt: number;
}

export type Outcome =
  | { kind: 'delivered'; status: number }
  | { kind: 'retry'; at: Date; status: number | null; error: string | null }
  | { kind: 'failed'; status: number | null; error: string | null };

export class DeliveryRepository {
  private constructor(
    private readonly coll: Collection<DeliveryDoc>,
    private readonly retainMs: number,
  ) {}

  static async open(store: DocStore, retainMs: number): Promise<DeliveryRepository> {
    const coll = store.collection<DeliveryDoc>(WEBHOOK_DELIVERIES);
    // The claim query, and removal of finished records after they have been kept a while.
    await coll.createIndex({ keys: { state: 1, nextAttemptAt: 1 }, name: 'due' });
    await coll.createIndex({ keys: { expiresAt: 1 }, expireAfterSeconds: 0, name: 'expiry' });
    return new DeliveryRepository(coll, retainMs);
  }

  /** Inserts a new pending delivery; false when this job already has one. */
  async insert(d: { jobId: string; accountId: string; url: string; body: string; now: Date; trace?: TraceCarrier }): Promise<boolean> {
    try {
      await this.coll.insertOne({
        _id: d.jobId,
        accountId: d.accountId,
        url: d.url,
        body: d.body,
        attempts: 0,
        nextAttemptAt: d.now,
        state: 'pending',
        leaseOwner: null,
        leaseUntil: null,
        lastStatus: null,
        lastError: null,
        createdAt: d.now,
        updatedAt: d.now,
        expiresAt: null,
        ...(d.trace ? { trace: d.trace } : {}),
      });
      return true;
    } catch (err) {
      // The job id is the _id: a second enqueue for the same job is a no-op.
      if (err instanceof DuplicateKeyError || (err as { code?: unknown }).code === 11000) return false;
      throw err;
    }
  }

  /** Atomically takes the most overdue pending delivery for one attempt, or null. */
  async claimDue(owner: string, now: Date, leaseMs: number): Promise<Claim | null> {
    const leaseUntil = new Date(now.getTime() + leaseMs);
    const doc = await this.coll.findOneAndUpdate(
      { state: 'pending', nextAttemptAt: { $lte: now } },
      { $set: { leaseOwner: owner, leaseUntil, nextAttemptAt: leaseUntil, updatedAt: now }, $inc: { attempts: 1 } },
      { sort: { nextAttemptAt: 1 }, returnDocument: 'after' },
    );
    return doc ? { doc, owner, attempt: doc.attempts } : null;
  }

  /**
   * Records an attempt's outcome, only if this replica still holds that attempt (a replica that
   * outlived its lease must not overwrite what the next attempt wrote). Returns whether it did.
   */
  async record(claim: Claim, outcome: Outcome, now: Date): Promise<boolean> {
    const set: Record<string, unknown> = { leaseOwner: null, leaseUntil: null, updatedAt: now };
    if (outcome.kind === 'delivered') {
      Object.assign(set, { state: 'delivered', lastStatus: outcome.status, lastError: null, expiresAt: this.expiry(now) });
    } else if (outcome.kind === 'retry') {
      Object.assign(set, { nextAttemptAt: outcome.at, lastStatus: outcome.status, lastError: outcome.error });
    } else {
      Object.assign(set, { state: 'failed', lastStatus: outcome.status, lastError: outcome.error, expiresAt: this.expiry(now) });
    }
    const updated = await this.coll.findOneAndUpdate(
      { _id: claim.doc._id, state: 'pending', leaseOwner: claim.owner, attempts: claim.attempt },
      { $set: set },
    );
    return updated !== null;
  }

  countPending(): Promise<number> {
    return this.coll.countDocuments({ state: 'pending' });
  }

  async status(jobId: string): Promise<WebhookDeliveryStatus | null> {
    const doc = await this.coll.findOne({ _id: jobId });
    if (!doc) return null;
    return {
      jobId: doc._id,
      state: doc.state,
      attempts: doc.attempts,
      nextAttemptAt: doc.state === 'pending' ? doc.nextAttemptAt : null,
      lastStatus: doc.lastStatus ?? null,
      lastError: doc.lastError ?? null,
    };
  }

  private expiry(now: Date): Date {
    return new Date(now.getTime() + this.retainMs);
  }
}
