// Calls in progress on a Connect server, so a stopping service finishes (or cancels) them and
// lets their handlers record the outcome before its store is closed. Without this, a sync run cut
// by a shutdown stayed `processing` in the store until its lease ran out (2 x JOB_TIMEOUT_SEC).
import { setTimeout as pause } from 'node:timers/promises';
import { Code, ConnectError, type Interceptor } from '@connectrpc/connect';
import { whenCallEnds } from './call-stream.js';

/** After the cancel, how long handlers get to record the outcome (kill ffmpeg, write the job). */
const SETTLE_AFTER_CANCEL_MS = 10_000;
const POLL_MS = 50;

/** Health's Watch streams until its client leaves: waiting for it would only delay every stop. */
const UNTRACKED_SERVICES = new Set(['grpc.health.v1.Health']);

const SHUTTING_DOWN = 'the service is shutting down';

/**
 * The error a handler's signal carries when this service's shutdown cancelled the call, else
 * undefined. A handler rethrows it, whatever error the cancelled step surfaced as, so the caller
 * is told to retry (503).
 */
export function cancelledByShutdown(signal: AbortSignal | undefined): ConnectError | undefined {
  const reason: unknown = signal?.aborted ? signal.reason : undefined;
  return reason instanceof ConnectError && reason.code === Code.Unavailable && reason.rawMessage === SHUTTING_DOWN ? reason : undefined;
}

export interface InflightCalls {
  interceptor: Interceptor;
  /**
   * Waits up to `graceMs` until no call is in progress and `othersPending()` (requests not yet
   * handed to a handler) is false; then cancels what is left and waits for it to settle.
   */
  drain(graceMs: number, othersPending?: () => boolean, settleMs?: number): Promise<void>;
}

export function trackInflight(): InflightCalls {
  // Per call, its own controller (not AbortSignal.any with one long-lived shutdown signal, which
  // would gather a dependant per call on it for the server's lifetime).
  const calls = new Set<AbortController>();
  const waitUntilIdle = async (ms: number, othersPending: () => boolean) => {
    const deadline = Date.now() + ms;
    while ((calls.size > 0 || othersPending()) && Date.now() < deadline) await pause(Math.min(POLL_MS, Math.max(1, deadline - Date.now())));
  };
  return {
    // A handler sees the shutdown as it sees a hang-up: on its request's signal.
    interceptor: (next) => async (req) => {
      if (UNTRACKED_SERVICES.has(req.service.typeName)) return next(req);
      const controller = new AbortController();
      const hangUp = () => controller.abort(req.signal.reason);
      if (req.signal.aborted) hangUp();
      else req.signal.addEventListener('abort', hangUp, { once: true });
      calls.add(controller);
      const forget = () => {
        calls.delete(controller);
        req.signal.removeEventListener('abort', hangUp);
      };
      try {
        // A server stream is in progress until its last message is sent (or it fails).
        return whenCallEnds(await next({ ...req, signal: controller.signal }), forget);
      } catch (err) {
        forget();
        throw err;
      }
    },
    async drain(graceMs, othersPending = () => false, settleMs = SETTLE_AFTER_CANCEL_MS) {
      await waitUntilIdle(graceMs, othersPending);
      if (calls.size === 0) return;
      const reason = new ConnectError(SHUTTING_DOWN, Code.Unavailable);
      for (const controller of calls) controller.abort(reason);
      await waitUntilIdle(settleMs, () => false);
    },
  };
}
