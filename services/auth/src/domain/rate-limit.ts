// Per-key request rate over a sliding minute, estimated from two fixed one-minute windows
// (the previous window's count weighted by how much of it still overlaps the last 60 s).
// Counters live in the Auth service's store, so every gateway and Auth replica sees one count.

export const WINDOW_MS = 60_000;

export interface RateCounters {
  /** Atomically adds `delta` to the window's counter and returns the new value. */
  add(keyId: string, window: number, delta: number): Promise<number>;
  get(keyId: string, window: number): Promise<number>;
}

export interface RateDecision {
  allowed: boolean;
  remaining: number;
  /** Seconds until a request would be allowed again (when refused), or until the window rolls. */
  retryAfterSec: number;
}

export function estimate(previous: number, current: number, elapsedMs: number): number {
  return previous * (1 - elapsedMs / WINDOW_MS) + current;
}

/** Seconds from now until the estimate drops below the limit, assuming no further requests. */
export function secondsUntilAllowed(previous: number, current: number, elapsedMs: number, limit: number): number {
  // Still in this window: previous * (1 - (elapsed + t) / W) + current < limit.
  if (current < limit && previous > 0) {
    const t = WINDOW_MS * (1 - (limit - current) / previous) - elapsedMs;
    if (t <= WINDOW_MS - elapsedMs) return Math.max(1, Math.ceil(t / 1000));
  }
  // Next window: current * (1 - e / W) < limit.
  const e = current > limit ? WINDOW_MS * (1 - limit / current) : 0;
  return Math.max(1, Math.ceil((WINDOW_MS - elapsedMs + e) / 1000));
}

export async function checkRate(counters: RateCounters, keyId: string, limit: number, now: number): Promise<RateDecision> {
  const window = Math.floor(now / WINDOW_MS);
  const elapsed = now - window * WINDOW_MS;
  const [previous, current] = await Promise.all([counters.get(keyId, window - 1), counters.add(keyId, window, 1)]);
  const used = estimate(previous, current, elapsed);
  if (used <= limit) {
    return { allowed: true, remaining: Math.max(0, Math.floor(limit - used)), retryAfterSec: Math.ceil((WINDOW_MS - elapsed) / 1000) };
  }
  // Refused requests do not count against the key.
  await counters.add(keyId, window, -1);
  return { allowed: false, remaining: 0, retryAfterSec: secondsUntilAllowed(previous, current - 1, elapsed, limit) };
}
