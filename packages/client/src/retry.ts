// A fetch that resends on 429 and 503 after the Retry-After the API sent (and on a connection
// that failed before any answer), a bounded number of times. POSTs carry an Idempotency-Key
// (client.ts), so sending one again never does the work twice.
import { retryAfter } from './errors.js';

export interface RetryOptions {
  /** Attempts after the first (default 4). */
  retries?: number;
  /** The longest wait honoured, in seconds (default 60); a longer Retry-After is not waited out. */
  maxWaitSec?: number;
  /** Wait when an answer names none, or before resending after a network error (default 1 s). */
  defaultWaitSec?: number;
  /** Called before each wait (the CLI prints it). */
  onRetry?: (info: { attempt: number; status: number; waitSec: number }) => void;
}

const sleep = (ms: number, signal?: AbortSignal | null) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        reject(signal.reason);
      },
      { once: true },
    );
  });

export function retryingFetch(base: typeof fetch, opts: RetryOptions = {}): typeof fetch {
  const retries = opts.retries ?? 4;
  const maxWait = opts.maxWaitSec ?? 60;
  const fallback = opts.defaultWaitSec ?? 1;
  return async (input, init) => {
    const request = new Request(input, init);
    for (let attempt = 1; ; attempt++) {
      let res: Response;
      try {
        // A clone per attempt: a body can be read once.
        res = await base(request.clone());
      } catch (err) {
        if (attempt > retries || request.signal.aborted) throw err;
        opts.onRetry?.({ attempt, status: 0, waitSec: fallback });
        await sleep(fallback * 1000, request.signal);
        continue;
      }
      if ((res.status !== 429 && res.status !== 503) || attempt > retries) return res;
      const waitSec = retryAfter(res) ?? fallback;
      if (waitSec > maxWait) return res;
      await res.body?.cancel();
      opts.onRetry?.({ attempt, status: res.status, waitSec });
      await sleep(waitSec * 1000, request.signal);
    }
  };
}
