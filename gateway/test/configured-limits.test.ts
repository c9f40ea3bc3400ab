// An operator's own limits (RATE_LIMIT_PER_MINUTE, PARALLEL_JOBS) are enforced and named in the
// 429 texts, which otherwise name the spec's 300 and 50.
import { startTestStack, type TestStack } from '@media/stack/testing';

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack({ RATE_LIMIT_PER_MINUTE: '3' });
});
afterAll(() => stack?.close());

test('RATE_LIMIT_PER_MINUTE=3: the 4th request in a minute -> 429 naming 3', async () => {
  const { authorization } = await stack.newAccount();
  const get = () => stack.gateway.app.inject({ method: 'GET', url: '/account', headers: { authorization } });
  for (let i = 0; i < 3; i++) {
    const res = await get();
    expect(res.statusCode).toBe(200);
    expect(res.headers['x-ratelimit-limit']).toBe('3');
  }
  const limited = await get();
  expect(limited.statusCode).toBe(429);
  expect(limited.json()).toEqual({ ok: false, error: 'Rate limit exceeded: 3 requests a minute per key. Retry shortly.' });
});
