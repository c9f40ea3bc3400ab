// One total deadline for a whole fetch (DNS, every redirect hop, headers and body), combined with
// the caller's own cancel signal. Each phase also has undici's limits, but only this bounds the sum.

export interface Deadline {
  signal: AbortSignal;
  /** True once the deadline (not the caller) aborted. */
  readonly expired: boolean;
  dispose(): void;
}

export function startDeadline(ms: number, callerSignal?: AbortSignal): Deadline {
  const ctrl = new AbortController();
  let expired = false;
  const timer = setTimeout(() => {
    expired = true;
    ctrl.abort(new Error(`deadline of ${ms} ms passed`));
  }, ms);
  const signal = callerSignal ? AbortSignal.any([ctrl.signal, callerSignal]) : ctrl.signal;
  return {
    signal,
    get expired() {
      return expired;
    },
    dispose: () => clearTimeout(timer),
  };
}
