// The shared per-key counts. Counters live in the Auth service's store, so every gateway and Auth
// replica sees one count; the sliding-minute arithmetic is in @media/platform (rate-window).
import { decide, windowOf, type RateDecision } from '@media/platform';

export interface RateCounters {
  /** Atomically adds `delta` to the window's counter and returns the new value. */
  add(keyId: string, window: number, delta: number): Promise<number>;
  get(keyId: string, window: number): Promise<number>;
}

export interface CountedDecision extends RateDecision {
  window: number;
  /** Counts after this request (a refused request is not counted). */
  previous: number;
  current: number;
}

export async function checkRate(counters: RateCounters, keyId: string, limit: number, now: number): Promise<CountedDecision> {
  const { window, previous, current } = await addAdmitted(counters, keyId, windowOf(now), 1);
  const decision = decide(previous, current - 1, now, limit);
  if (decision.allowed) return { ...decision, window, previous, current };
  // Refused requests do not count against the key.
  await counters.add(keyId, window, -1);
  return { ...decision, window, previous, current: current - 1 };
}

/** Adds requests (a gateway's admitted ones, or the one Auth checks); answers the key's counts including them. */
export async function addAdmitted(counters: RateCounters, keyId: string, window: number, count: number) {
  const [previous, current] = await Promise.all([counters.get(keyId, window - 1), counters.add(keyId, window, count)]);
  return { window, previous, current };
}
