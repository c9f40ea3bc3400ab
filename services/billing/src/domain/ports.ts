// What Billing's rules need of its store (implemented by the repository adapter): the totals'
// documents and the repository interface. The domain depends on these, never on the store's code.
import type { UsageRow } from './charge.js';
import type { Position, UsageQuery } from './cursor.js';

/**
 * The exact GB-seconds of one account's hour, in billionths (a decimal string: exact past 2^53);
 * `stale` once a charge of that hour came after the total was summed (see domain/quota.ts).
 */
export interface HourTotalDoc {
  _id: string;
  accountId: string;
  hour: Date;
  /** "YYYY-MM" of the hour: a month's totals by one index lookup. */
  yearMonth: string;
  nanos: string;
  version: number;
  stale: boolean;
  /** The hour's charges per key (the console's Usage page), summed at `byKeyVersion`. */
  byKey?: KeyTotals;
  byKeyVersion?: number;
  [k: string]: unknown;
}

/** Per key: GB-seconds and dollars in billionths (exact), and the number of charges. */
export type KeyTotals = Record<string, { gbNanos: string; usdNanos: string; jobs: number }>;

/** The same for a whole month ("YYYY-MM"): what a call reads while nothing changed. */
export interface MonthTotalDoc {
  _id: string;
  accountId: string;
  yearMonth: string;
  nanos: string;
  version: number;
  stale: boolean;
  [k: string]: unknown;
}

export interface BillingRepository {
  /** false when the request already has its row (a redelivered or duplicated event). */
  insert(row: UsageRow): Promise<boolean>;
  get(requestId: string): Promise<UsageRow | null>;
  /** Rows of the query strictly after `after`, in export order (completed_at, then request_id); limit 0 = all. */
  list(q: UsageQuery, limit: number, after?: Position): Promise<UsageRow[]>;
  /** Rows stored before hour totals existed: their hours of this month marked once (idempotent). */
  backfillHours(now: Date): Promise<void>;
  /** A charge of this hour was stored: its total, and its month's, must be summed again. */
  markHour(accountId: string, hour: Date): Promise<void>;
  /** The month's total (null: nothing was ever charged in it). */
  monthTotal(accountId: string, yearMonth: string): Promise<MonthTotalDoc | null>;
  /** Saves a summed total unless a charge marked it since it was read (compare-and-set on version). */
  saveMonthTotal(id: string, version: number, nanos: string): Promise<boolean>;
  /** The hour totals of a month ("YYYY-MM"), in order. */
  monthHourTotals(accountId: string, yearMonth: string): Promise<HourTotalDoc[]>;
  saveHourTotal(id: string, version: number, nanos: string): Promise<boolean>;
  /** Saves an hour's per-key sums unless a charge marked the hour since it was read (version). */
  saveHourByKey(id: string, version: number, byKey: KeyTotals): Promise<boolean>;
  /** The account's rows of one hour (hourOf): what each key was charged. */
  rowsOfHour(accountId: string, hour: Date): Promise<Array<{ keyId: string; gbSec: number; amountUsd: number }>>;
  /** A month with rows but no hour totals: its hours marked once, as backfillHours does for the current month. */
  backfillMonth(accountId: string, yearMonth: string): Promise<void>;
  /** The gb_sec of the account's rows of one hour (hourOf). */
  gbSecOfHour(accountId: string, hour: Date): Promise<number[]>;
}
