// A retry schedule: the waits between attempts, as a list of delays. The bus's redeliveries
// (SubscribeOptions.backoffMs) and the webhook deliverer's attempts (Jobs'
// WEBHOOK_RETRY_SCHEDULE_SEC) both follow one; each caller keeps its own list and its own limit
// on attempts (maxDeliver; the webhook's list length + 1).

/**
 * The wait after the `failed`th failed attempt (1-based): that entry of the schedule; past the
 * end the last one repeats; an empty schedule waits 0.
 */
export function scheduledDelay(scheduleMs: readonly number[], failed: number): number {
  if (scheduleMs.length === 0) return 0;
  return scheduleMs[Math.min(failed, scheduleMs.length) - 1] ?? 0;
}
