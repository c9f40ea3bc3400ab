// An opossum breaker per dependency: after repeated transport failures calls fail at once with
// UNAVAILABLE (the gateway answers 503 + Retry-After) instead of piling up, and a half-open probe
// lets traffic back in by itself when the dependency returns.
import CircuitBreaker from 'opossum';
import { Code, ConnectError, type Interceptor } from '@connectrpc/connect';
import { Errors, isTransportFailure } from './errors.js';
import type { Logger } from './logger.js';
import { metrics } from './metrics.js';

export interface BreakerOptions {
  /** Percentage of failures (within the rolling window) that opens the breaker. */
  errorThresholdPercentage?: number;
  /** How long the breaker stays open before a trial call. */
  resetTimeoutMs?: number;
  /** Minimum calls in the window before the percentage counts. */
  volumeThreshold?: number;
}

/** media_breaker_open follows every breaker of the process (names are dependency names: bounded). */
function exposeState(breaker: CircuitBreaker<[() => Promise<unknown>], unknown>, name: string) {
  metrics.breakerOpen.set({ dependency: name }, 0);
  breaker.on('open', () => metrics.breakerOpen.set({ dependency: name }, 1));
  breaker.on('close', () => metrics.breakerOpen.set({ dependency: name }, 0));
}

export function createBreaker(name: string, options: BreakerOptions = {}): CircuitBreaker<[() => Promise<unknown>], unknown> {
  const breaker = new CircuitBreaker((call: () => Promise<unknown>) => call(), {
    name,
    timeout: false,
    errorThresholdPercentage: options.errorThresholdPercentage ?? 50,
    resetTimeout: options.resetTimeoutMs ?? 5000,
    volumeThreshold: options.volumeThreshold ?? 5,
    // Only failures to reach the dependency count; domain answers (404, 409, ...) are successes.
    errorFilter: (err: unknown) => !isTransportFailure(err),
  });
  exposeState(breaker, name);
  return breaker;
}

/**
 * Wraps any async function call in the breaker, mapping its refusal to a retryable error. The
 * breaker refuses while open, and also while half-open with its one trial call still in flight
 * (then `opened` is false): both are "unavailable", never an unknown error.
 */
export async function throughBreaker<T>(
  breaker: CircuitBreaker<[() => Promise<unknown>], unknown>,
  call: () => Promise<T>,
  onOpen: () => Error,
): Promise<T> {
  try {
    return (await breaker.fire(call)) as T;
  } catch (err) {
    if ((err as { code?: string })?.code === 'EOPENBREAKER') throw onOpen();
    throw err;
  }
}

/** Client interceptor: every RPC to one service goes through that service's breaker. */
export function breakerInterceptor(name: string, options?: BreakerOptions): Interceptor {
  const breaker = createBreaker(name, options);
  return (next) => (req) =>
    throughBreaker(
      breaker,
      () => next(req),
      () => new ConnectError(`${name} is unavailable (circuit open)`, Code.Unavailable),
    );
}

/**
 * A breaker around one piece of infrastructure (MongoDB, NATS, S3), handed to the decorators of
 * @media/docstore, @media/eventbus and @media/blobstore (guardDocStore, guardEventBus,
 * guardBlobStore), which know their calls and which of their errors mean "cannot reach it".
 */
export interface DependencyGuard {
  readonly name: string;
  readonly breaker: CircuitBreaker<[() => Promise<unknown>], unknown>;
  /**
   * Runs one call to the dependency. An outage (isOutage) counts toward opening the breaker and
   * is rethrown as Errors.dependencyDown() (503 + Retry-After); any other error is an answer of
   * the dependency (duplicate key, no such key...): rethrown unchanged, counted as a success.
   * While the breaker is open, dependencyDown() at once.
   */
  run<T>(call: () => Promise<T>): Promise<T>;
  /** Throws dependencyDown() while the breaker is open (work that needs the dependency later, e.g. a presigned URL). */
  assertAvailable(): void;
}

export interface DependencyGuardOptions extends BreakerOptions {
  /** Told when the breaker opens, half-opens and closes (the service's logger). */
  logger?: Logger;
}

/**
 * Infrastructure breakers open after 3 outages in a row (however many calls succeeded before),
 * or more than half of the calls in 10 s (at least 3) failing on an outage; they let a trial call
 * through after 5 s (= Retry-After) and close when it gets an answer.
 */
export function dependencyGuard(name: string, isOutage: (err: unknown) => boolean, options: DependencyGuardOptions = {}): DependencyGuard {
  const resetTimeoutMs = options.resetTimeoutMs ?? 5000;
  const retryAfterSec = Math.max(1, Math.ceil(resetTimeoutMs / 1000));
  const volume = options.volumeThreshold ?? 3;
  const breaker = new CircuitBreaker((call: () => Promise<unknown>) => call(), {
    name,
    timeout: false,
    errorThresholdPercentage: options.errorThresholdPercentage ?? 50,
    resetTimeout: resetTimeoutMs,
    volumeThreshold: volume,
    errorFilter: (err: unknown) => !isOutage(err),
  });
  let lastOutage: unknown;
  let inARow = 0;
  breaker.on('success', () => (inARow = 0));
  breaker.on('failure', (err: unknown) => {
    lastOutage = err;
    // The percentage alone would wait for the successes of the last 10 s to be outweighed.
    if (++inARow >= volume && breaker.closed) breaker.open();
  });
  exposeState(breaker, name);
  const log = options.logger;
  if (log) {
    breaker.on('open', () =>
      log.warn(
        { breaker: name, error: (lastOutage as Error | undefined)?.message },
        `circuit open: ${name} is unavailable; answering 503 at once for ${retryAfterSec} s`,
      ),
    );
    breaker.on('halfOpen', () => log.info({ breaker: name }, `circuit half-open: trying ${name} again`));
    breaker.on('close', () => log.info({ breaker: name }, `circuit closed: ${name} is back`));
  }
  const down = () => Errors.dependencyDown(retryAfterSec);
  return {
    name,
    breaker,
    async run<T>(call: () => Promise<T>): Promise<T> {
      try {
        return (await breaker.fire(call)) as T;
      } catch (err) {
        if ((err as { code?: string })?.code === 'EOPENBREAKER' || isOutage(err)) throw down();
        throw err;
      }
    },
    assertAvailable() {
      if (breaker.opened) throw down();
    },
  };
}
