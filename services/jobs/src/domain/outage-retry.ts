// Waiting out a dependency outage (MongoDB, NATS, S3, a service down): tries again 1 s later,
// doubling, at most 30 s apart, until a limit or a stop. The schedule follows the project's one
// retry rule (scheduledDelay: the bus's redeliveries and the webhooks' attempts use it too).
import { scheduledDelay } from '@media/eventbus';

/** Waits between tries of a step that failed on an outage: 1 s, doubling, at most 30 s (then 30 s on). */
export const OUTAGE_RETRY_SCHEDULE_MS = [1000, 2000, 4000, 8000, 16_000, 30_000] as const;

/** The wait before try `attempt + 1` (attempt 0: after the first failure), never past `until` (epoch ms). */
export const retryDelay = (attempt: number, until: number): number =>
  Math.min(scheduledDelay(OUTAGE_RETRY_SCHEDULE_MS, attempt + 1), Math.max(0, until - Date.now()));

/** Resolves after ms, or at once when the signal aborts. */
export function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done);
  });
}
