// Retry timing. The interface promises up to 6 attempts over about 2 hours: the default waits
// 1, 5, 15, 30 and 70 minutes between them (121 min from the first attempt to the last).
import { scheduledDelay } from '@media/eventbus';

export const DEFAULT_SCHEDULE_MS: readonly number[] = Object.freeze([60_000, 300_000, 900_000, 1_800_000, 4_200_000]);
export const DEFAULT_POLL_INTERVAL_MS = 1000;
export const DEFAULT_CONCURRENCY = 8;
export const DEFAULT_SECRET_TTL_MS = 60_000;
export const DEFAULT_RETAIN_MS = 30 * 24 * 3600 * 1000;

export function checkSchedule(scheduleMs: readonly number[]): readonly number[] {
  if (!scheduleMs.every((ms) => Number.isFinite(ms) && ms >= 0)) throw new Error('webhook scheduleMs must be non-negative numbers');
  return Object.freeze([...scheduleMs]);
}

/** Delay before the attempt after `attemptsMade`, or null when none is left (one attempt per delay, plus the first). */
export function nextDelay(scheduleMs: readonly number[], attemptsMade: number): number | null {
  return attemptsMade >= 1 && attemptsMade <= scheduleMs.length ? scheduledDelay(scheduleMs, attemptsMade) : null;
}
