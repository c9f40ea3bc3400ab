// Waiting out a dependency outage (MongoDB, NATS, S3, a service down): tries again 1 s later,
// doubling, at most 30 s apart, until a limit or a stop.

/** Waits between tries of a step that failed on an outage: 1 s, doubling, at most 30 s. */
export const RETRY_FIRST_MS = 1000;
export const RETRY_MAX_MS = 30_000;

/** The wait before try `attempt + 1`, never past `until` (epoch ms). */
export const retryDelay = (attempt: number, until: number): number =>
  Math.min(RETRY_FIRST_MS * 2 ** attempt, RETRY_MAX_MS, Math.max(0, until - Date.now()));

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
