// Calls in progress on a Connect server, so a stopping service finishes (or cancels) them and
// lets their handlers record the outcome before its store is closed. Without this, a sync run cut
// by a shutdown stayed `processing` in the store until its lease ran out (2 x JOB_TIMEOUT_SEC).
import { Code, ConnectError, type Interceptor } from '@connectrpc/connect';

/** After the cancel, how long handlers get to record the outcome (kill ffmpeg, write the job). */
const SETTLE_AFTER_CANCEL_MS = 10_000;

export interface InflightCalls {
  interceptor: Interceptor;
  /** Waits up to `graceMs` for the calls in progress, then cancels the rest and waits for them to settle. */
  drain(graceMs: number): Promise<void>;
}

export function trackInflight(): InflightCalls {
  const shutdown = new AbortController();
  const calls = new Set<Promise<unknown>>();
  const settled = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      void Promise.allSettled([...calls]).then(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  return {
    // A handler sees the shutdown as it sees a hang-up: on its request's signal.
    interceptor: (next) => (req) => {
      const call = next({ ...req, signal: AbortSignal.any([req.signal, shutdown.signal]) });
      calls.add(call);
      const forget = () => calls.delete(call);
      call.then(forget, forget);
      return call;
    },
    async drain(graceMs) {
      if (calls.size) await settled(graceMs);
      if (!calls.size) return;
      shutdown.abort(new ConnectError('the service is shutting down', Code.Unavailable));
      await settled(SETTLE_AFTER_CANCEL_MS);
    },
  };
}
