// Every row of the spec's Authentication table, through the public gateway, on the embedded
// adapters and again with the event bus on a real nats-server.
import { AccountStatus } from '@media/proto/media/auth/v1/auth_pb.js';
import { startTestStack, type TestStack } from '@media/stack/testing';
import { startNatsServer, waitFor } from '@media/testkit';
import { answersWithin } from './helpers.js';

const b64 = (s: string) => Buffer.from(s).toString('base64');

describe.each([['embedded bus'], ['NATS JetStream bus']])('authentication (%s)', (mode) => {
  let stack: TestStack;
  let nats: Awaited<ReturnType<typeof startNatsServer>> | undefined;

  beforeAll(async () => {
    if (mode.startsWith('NATS')) nats = await startNatsServer();
    // Rate reports (whose answers also evict a revoked key) 10 s apart on NATS, so that what
    // evicts within answersWithin's 2 s there is the event.
    stack = await startTestStack(nats ? { NATS_URL: nats.url, AUTH_RATE_SYNC_MS: '10000' } : {});
  });
  afterAll(async () => {
    await stack?.close();
    await nats?.stop();
  });

  const get = (authorization?: string, url = '/account') =>
    stack.gateway.app.inject({ method: 'GET', url, headers: authorization === undefined ? {} : { authorization } });
  // The in-process bus hands an event to the gateway before the Auth call that published it
  // returns: the next request sees it. NATS (also under TEST_ADAPTERS=networked) delivers it
  // moments later.
  const onNats = () => nats !== undefined || stack.networked?.natsUrl !== undefined;
  const next = (authorization: string, status: number) =>
    onNats() ? answersWithin(() => get(authorization), status, 2000) : get(authorization);

  test('no Authorization header -> 401 "Authorization Header Required", with X-Request-Id', async () => {
    const res = await get();
    expect(res.statusCode).toBe(401);
    expect(res.json()).toEqual({ ok: false, error: 'Authorization Header Required' });
    expect(res.headers['x-request-id']).toMatch(/^req_[a-z0-9]{20}$/);
  });

  test('every accepted header form authenticates', async () => {
    const { key } = await stack.newAccount();
    for (const header of [
      `Basic ${key}`,
      `basic ${key}`,
      `BASIC ${key}`,
      `Basic ${b64(key)}`,
      `Basic ${b64(`${key}:`)}`,
      `Basic ${b64(`:${key}`)}`,
    ]) {
      const res = await get(header);
      expect({ header, status: res.statusCode }).toEqual({ header, status: 200 });
    }
  });

  test('wrong or malformed keys -> 401 "Invalid API key"', async () => {
    const { key } = await stack.newAccount();
    const wrong = key.slice(0, -1) + (key.endsWith('a') ? 'b' : 'a');
    for (const header of [`Basic ${wrong}`, 'Basic nothing-like-a-key', `Bearer ${key}`, `Basic ${b64(`user:${wrong}`)}`, key, 'Basic']) {
      const res = await get(header);
      expect({ header, status: res.statusCode, body: res.json() }).toEqual({
        header,
        status: 401,
        body: { ok: false, error: 'Invalid API key' },
      });
    }
  });

  test('GET /account answers the Account shape', async () => {
    const { accountId, authorization } = await stack.newAccount();
    const res = await get(authorization);
    expect(res.statusCode).toBe(200);
    const now = new Date();
    const ym = now.toISOString().slice(0, 7);
    const next = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)).toISOString().slice(0, 10);
    expect(res.json()).toEqual({
      ok: true,
      account_id: accountId,
      plan: 'pay-as-you-go',
      quota: { used_gb_sec: 0, limit_gb_sec: null, remaining_gb_sec: null, year_month: ym, resets_on: next },
      limits: { requests_per_minute: 300, max_file_size_mb: 5000, parallel_jobs: 50 },
      jobs: { active: 0, available_slots: 50 },
    });
    expect(res.headers['x-request-id']).toMatch(/^req_/);
  });

  test('a revoked key stops working at once (on NATS, as soon as the event arrives)', async () => {
    const { keyId, authorization } = await stack.newAccount();
    expect((await get(authorization)).statusCode).toBe(200);
    await stack.admin.revokeKey({ keyId });
    const res = await next(authorization, 401);
    expect(res.statusCode).toBe(401);
    expect(res.json().error).toBe('Invalid API key');
  });

  test('an expired key -> 401', async () => {
    const { accountId } = await stack.newAccount();
    const { authorization } = await stack.newKey(accountId, new Date(Date.now() + 1500));
    expect((await get(authorization)).statusCode).toBe(200);
    // Its expiry is the event waited for (not a fixed 1.7 s): the first refusal.
    await waitFor('the key to expire', async () => (await get(authorization)).statusCode === 401);
    expect((await get(authorization)).json()).toEqual({ ok: false, error: 'Invalid API key' });
  });

  test.each([
    [AccountStatus.NO_CARD, 403, 'Add a card at https://console.example.com to start using the API.'],
    [AccountStatus.PAYMENT_FAILED, 403, 'A payment failed. Pay the open invoice at https://console.example.com to resume.'],
    [AccountStatus.SUSPENDED, 403, 'This account is suspended. Contact support@example.com.'],
    [AccountStatus.CLOSED, 401, 'Invalid API key'],
  ])('account status %s -> %s', async (status, code, text) => {
    const { authorization } = await stack.newAccount(status);
    const res = await get(authorization);
    expect(res.statusCode).toBe(code);
    expect(res.json()).toEqual({ ok: false, error: text });
  });

  test('a status change applies at once (on NATS, as soon as the event arrives), and 401 comes before 403', async () => {
    const { accountId, keyId, authorization } = await stack.newAccount();
    expect((await get(authorization)).statusCode).toBe(200);
    await stack.admin.setAccountStatus({ accountId, status: AccountStatus.SUSPENDED });
    expect((await next(authorization, 403)).statusCode).toBe(403);
    await stack.admin.revokeKey({ keyId });
    expect((await next(authorization, 401)).statusCode).toBe(401);
  });

  test('301st request in a minute -> 429 with Retry-After; other keys unaffected', async () => {
    // The count is per minute window: start at the beginning of one so the test cannot straddle two.
    stack.rateClock.freshWindow();
    const { accountId, authorization } = await stack.newAccount();
    for (let i = 0; i < 300; i++) {
      const res = await get(authorization, i % 2 ? '/account' : '/no-such-path-but-authenticated');
      // Unknown paths are not authenticated, so they do not count; only /account does.
      if (i % 2) expect(res.statusCode).toBe(200);
    }
    for (let i = 0; i < 150; i++) expect((await get(authorization)).statusCode).toBe(200);
    const limited = await get(authorization);
    expect(limited.statusCode).toBe(429);
    expect(limited.json()).toEqual({ ok: false, error: 'Rate limit exceeded: 300 requests a minute per key. Retry shortly.' });
    expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(Number(limited.headers['retry-after'])).toBeLessThanOrEqual(60);
    const other = await stack.newKey(accountId);
    expect((await get(other.authorization)).statusCode).toBe(200);
  });
});
