// The infrastructure breaker (dependencyGuard) and the decorators that apply it: outages count
// and answer 503 + Retry-After, answers of the dependency pass through untouched, an open breaker
// answers at once and lets a trial call through after resetTimeout.
import { once } from 'node:events';
import { Code } from '@connectrpc/connect';
import { DuplicateKeyError } from '@media/docstore';
import { isBusOutage, PublishError } from '@media/eventbus';
import { dependencyGuard } from '../src/breaker.js';
import { DomainError, Errors, isRetryableFault, toConnectError, toHttpError } from '../src/errors.js';

class Outage extends Error {}
const isOutage = (err: unknown) => err instanceof Outage;
const fail = (err: Error) => () => Promise.reject(err);

test('outages answer 503 with Retry-After; 3 in a row open the breaker, which answers without calling', async () => {
  const guard = dependencyGuard('dep', isOutage, { resetTimeoutMs: 5000 });
  for (let i = 0; i < 3; i++) {
    const err = await guard.run(fail(new Outage('down'))).catch((e) => e);
    expect(err).toBeInstanceOf(DomainError);
    expect({ kind: err.kind, message: err.message, retryAfterSec: err.retryAfterSec }).toEqual({
      kind: 'unavailable',
      message: Errors.dependencyDown().message,
      retryAfterSec: 5,
    });
  }
  expect(guard.breaker.opened).toBe(true);
  let calls = 0;
  const call = async () => (calls++, 'x');
  await expect(guard.run(call)).rejects.toMatchObject({ kind: 'unavailable', retryAfterSec: 5 });
  expect(calls).toBe(0);
  expect(() => guard.assertAvailable()).toThrow(DomainError);
  // Across the RPC boundary: UNAVAILABLE with retry-after, then 503 + Retry-After at the gateway.
  const err = await guard.run(call).catch((e) => e);
  const wire = toConnectError(err);
  expect({ code: wire.code, retryAfter: wire.metadata.get('retry-after') }).toEqual({ code: Code.Unavailable, retryAfter: '5' });
  expect(toHttpError(wire)).toMatchObject({ status: 503, message: 'A backing service is unavailable. Retry shortly.', retryAfterSec: 5 });
  expect(isRetryableFault(err) && isRetryableFault(wire)).toBe(true);
  guard.breaker.shutdown();
});

test('answers of the dependency pass through unchanged and never open the breaker', async () => {
  const guard = dependencyGuard('dep', isOutage);
  for (let i = 0; i < 10; i++) {
    const dup = new DuplicateKeyError();
    await expect(guard.run(fail(dup))).rejects.toBe(dup);
  }
  expect(guard.breaker.closed).toBe(true);
  expect(isRetryableFault(new DuplicateKeyError())).toBe(false);
  // A success in between resets the count: outages must come in a row (or exceed half the calls).
  await guard.run(fail(new Outage())).catch(() => undefined);
  await guard.run(fail(new Outage())).catch(() => undefined);
  await guard.run(async () => 1);
  await guard.run(fail(new Outage())).catch(() => undefined);
  expect(guard.breaker.closed).toBe(true);
  guard.breaker.shutdown();
});

test('after resetTimeout a trial call goes through; an answer closes the breaker', async () => {
  const guard = dependencyGuard('dep', isOutage, { resetTimeoutMs: 100 });
  for (let i = 0; i < 3; i++) await guard.run(fail(new Outage())).catch(() => undefined);
  expect(guard.breaker.opened).toBe(true);
  await once(guard.breaker, 'halfOpen'); // resetTimeout passed
  expect(guard.breaker.halfOpen).toBe(true);
  await expect(guard.run(async () => 'back')).resolves.toBe('back');
  expect(guard.breaker.closed).toBe(true);
  // A failed trial opens it again at once.
  for (let i = 0; i < 3; i++) await guard.run(fail(new Outage())).catch(() => undefined);
  await once(guard.breaker, 'halfOpen');
  await guard.run(fail(new Outage())).catch(() => undefined);
  expect(guard.breaker.opened).toBe(true);
  guard.breaker.shutdown();
});

test('which bus errors are outages', () => {
  expect(isBusOutage(new PublishError('publish to media.x failed: NATS is disconnected'))).toBe(true);
  expect(isBusOutage(new Error('event bus is closed'))).toBe(false);
});
