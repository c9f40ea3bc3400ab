// The per-service breaker on RPC clients (breakerInterceptor): whenever it refuses a call, open or
// half-open with its trial call still out, the caller gets UNAVAILABLE (the gateway's 503), never
// an unknown error (500).
import { jest } from '@jest/globals';
import { Code, ConnectError, type UnaryRequest, type UnaryResponse } from '@connectrpc/connect';
import { breakerInterceptor } from '../src/breaker.js';
import { toHttpError } from '../src/errors.js';

const req = {} as UnaryRequest;
const down = () => Promise.reject(new ConnectError('connect ECONNREFUSED 127.0.0.1:1', Code.Unavailable));

// Fake timers: the breaker's resetTimeout passes when the test moves the clock, not on the wall clock.
beforeEach(() => jest.useFakeTimers());
afterEach(() => jest.useRealTimers());

test('a call refused while the trial call of a half-open breaker is out is UNAVAILABLE, 503 at the gateway', async () => {
  let next: (r: UnaryRequest) => Promise<UnaryResponse> = down;
  const call = breakerInterceptor('media.test.v1.TestService', { resetTimeoutMs: 100, volumeThreshold: 1 })(
    (r) => next(r as UnaryRequest) as never,
  );
  await expect(call(req)).rejects.toMatchObject({ code: Code.Unavailable });
  // Open: refused at once.
  await expect(call(req)).rejects.toMatchObject({
    code: Code.Unavailable,
    rawMessage: 'media.test.v1.TestService is unavailable (circuit open)',
  });

  await jest.advanceTimersByTimeAsync(150); // past resetTimeout: half-open
  // Half-open: one trial call goes through and hangs; a second call meanwhile is refused.
  let answer!: (res: UnaryResponse) => void;
  next = () => new Promise((resolve) => (answer = resolve));
  const trial = call(req);
  const refused = await call(req).catch((e: unknown) => e);
  expect(refused).toBeInstanceOf(ConnectError);
  expect({ code: (refused as ConnectError).code, message: (refused as ConnectError).rawMessage }).toEqual({
    code: Code.Unavailable,
    message: 'media.test.v1.TestService is unavailable (circuit open)',
  });
  expect(toHttpError(refused)).toMatchObject({ status: 503, retryAfterSec: 5 });

  // The trial's answer closes the breaker: calls go through again.
  const ok = { message: 'ok' } as unknown as UnaryResponse;
  answer(ok);
  await expect(trial).resolves.toBe(ok);
  next = async () => ok;
  await expect(call(req)).resolves.toBe(ok);
});
