// An opossum breaker per dependency: after repeated transport failures calls fail at once with
// UNAVAILABLE (the gateway answers 503 + Retry-After) instead of piling up, and a half-open probe
// lets traffic back in by itself when the dependency returns.
import CircuitBreaker from 'opossum';
import { Code, ConnectError, type Interceptor } from '@connectrpc/connect';
import { isTransportFailure } from './errors.js';

export interface BreakerOptions {
  /** Percentage of failures (within the rolling window) that opens the breaker. */
  errorThresholdPercentage?: number;
  /** How long the breaker stays open before a trial call. */
  resetTimeoutMs?: number;
  /** Minimum calls in the window before the percentage counts. */
  volumeThreshold?: number;
}


export function createBreaker(name: string, options: BreakerOptions = {}): CircuitBreaker<[() => Promise<unknown>], unknown> {
  return new CircuitBreaker((call: () => Promise<unknown>) => call(), {
    name,
    timeout: false,
    errorThresholdPercentage: options.errorThresholdPercentage ?? 50,
    resetTimeout: options.resetTimeoutMs ?? 5000,
    volumeThreshold: options.volumeThreshold ?? 5,
    // Only failures to reach the dependency count; domain answers (404, 409, ...) are successes.
    errorFilter: (err: unknown) => !isTransportFailure(err),
  });
}

/** Wraps any async function call in the breaker, mapping "open" to a retryable error. */
export async function throughBreaker<T>(
  breaker: CircuitBreaker<[() => Promise<unknown>], unknown>,
  call: () => Promise<T>,
  onOpen: () => Error,
): Promise<T> {
  try {
    return (await breaker.fire(call)) as T;
  } catch (err) {
    if (breaker.opened && (err as { code?: string })?.code === 'EOPENBREAKER') throw onOpen();
    throw err;
  }
}

/** Client interceptor: every RPC to one service goes through that service's breaker. */
export function breakerInterceptor(name: string, options?: BreakerOptions): Interceptor {
  const breaker = createBreaker(name, options);
  return (next) => (req) =>
    throughBreaker(breaker, () => next(req), () => new ConnectError(`${name} is unavailable (circuit open)`, Code.Unavailable));
}
