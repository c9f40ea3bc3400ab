// Per-key request rate over a sliding minute, estimated from two fixed one-minute windows (the
// previous window's count weighted by how much of it still overlaps the last 60 s). Auth keeps
// the shared counts; gateways decide with the same arithmetic on counts they hold between reports.

export const WINDOW_MS = 60_000;

export const windowOf = (now: number): number => Math.floor(now / WINDOW_MS);

/** What the rate windows are read from: Date.now, or a test's clock (the services' test-only deps). */
export type RateClock = () => number;

/**
 * A test clock: real time plus an offset that `freshWindow` moves forward to the start of the next
 * window, so a test's requests all fall in one window without waiting for the minute to roll.
 * Gateways and Auth counting one key must share it (they compare window numbers).
 */
export function shiftableRateClock() {
  let offset = 0;
  const now: RateClock = () => Date.now() + offset;
  return {
    now,
    freshWindow(): void {
      offset += WINDOW_MS - (now() % WINDOW_MS);
    },
  };
}

export type ShiftableRateClock = ReturnType<typeof shiftableRateClock>;

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

/**
 * The decision for one more request, given the counts before it: `current` excludes the request.
 * A refused request is not counted.
 */
export function decide(previous: number, current: number, now: number, limit: number): RateDecision {
  const elapsed = now - windowOf(now) * WINDOW_MS;
  const used = estimate(previous, current + 1, elapsed);
  if (used <= limit) {
    return { allowed: true, remaining: Math.max(0, Math.floor(limit - used)), retryAfterSec: Math.ceil((WINDOW_MS - elapsed) / 1000) };
  }
  return { allowed: false, remaining: 0, retryAfterSec: secondsUntilAllowed(previous, current, elapsed, limit) };
}
