// Defaults of both adapters (the backoff rule itself: retry-schedule.ts).
import type { SubscribeOptions } from './types.js';

export const DEFAULT_MAX_DELIVER = 5;
export const DEFAULT_BACKOFF_MS = [1000];
export const DEFAULT_ACK_WAIT_MS = 30_000;
/** Stream retention defaults: keep a week of events, dedup msgIds for 2 minutes. */
export const DEFAULT_MAX_AGE_MS = 7 * 24 * 3600 * 1000;
export const DEFAULT_DUPLICATE_WINDOW_MS = 2 * 60 * 1000;
export const DEFAULT_STREAM = 'MEDIA_EVENTS';
export const DEFAULT_SUBJECTS = ['media.>'];

export interface ResolvedSubscribeOptions {
  durable?: string;
  maxDeliver: number;
  backoffMs: number[];
  ackWaitMs: number;
}

export function resolveSubscribeOptions(options: SubscribeOptions = {}): ResolvedSubscribeOptions {
  const maxDeliver = options.maxDeliver ?? DEFAULT_MAX_DELIVER;
  const ackWaitMs = options.ackWaitMs ?? DEFAULT_ACK_WAIT_MS;
  const backoffMs = options.backoffMs ?? DEFAULT_BACKOFF_MS;
  if (!Number.isInteger(maxDeliver) || maxDeliver < 1) throw new Error(`maxDeliver must be an integer >= 1, got ${maxDeliver}`);
  if (!(ackWaitMs > 0)) throw new Error(`ackWaitMs must be > 0, got ${ackWaitMs}`);
  if (backoffMs.some((ms) => !(ms >= 0))) throw new Error('backoffMs values must be >= 0');
  return { durable: options.durable, maxDeliver, backoffMs, ackWaitMs };
}
