// Idempotency-Key records: what a request with a key that already has a record gets.
import { randomBytes } from 'node:crypto';
import { IDEMPOTENCY_LEASE_SEC, IDEMPOTENCY_TTL_SEC } from '@media/platform';

export interface IdempotencyRecord {
  _id: string;
  fingerprint: string;
  /** Held by the request answering it (until leaseUntil), or done with the answer stored. */
  state: 'running' | 'done';
  lease?: string;
  leaseUntil?: Date;
  status?: number;
  body?: string;
  /** The record is gone after this (a TTL index; also checked on read, TTL sweeps are lazy). */
  expireAt: Date;
  [k: string]: unknown;
}

export type Seen = 'replay' | 'in_progress' | 'mismatch' | 'free';

/** One record per account and key (a key has no newline: visible ASCII only). */
export const recordId = (accountId: string, key: string) => `${accountId}\n${key}`;

/** What a request with `fingerprint` gets from an existing record at `now`. */
export function seen(record: IdempotencyRecord, fingerprint: string, now: Date): Seen {
  if (record.expireAt <= now) return 'free';
  if (record.state === 'running' && (record.leaseUntil ?? record.expireAt) <= now) return 'free';
  if (record.fingerprint !== fingerprint) return 'mismatch';
  return record.state === 'done' ? 'replay' : 'in_progress';
}

/** A new lease on a key, taken at `now`. */
export function newLease(now: Date): { lease: string; leaseUntil: Date } {
  return { lease: randomBytes(16).toString('base64url'), leaseUntil: new Date(now.getTime() + IDEMPOTENCY_LEASE_SEC * 1000) };
}

export const storedUntil = (now: Date) => new Date(now.getTime() + IDEMPOTENCY_TTL_SEC * 1000);
