// Two gateway replicas in front of one Auth service: a known key costs no call to Auth, the
// per-key limit holds across both, and a revocation or status change reaches both at once, or at
// the next rate report for a gateway that missed the event.
import type { FastifyInstance } from 'fastify';
import { AccountStatus } from '@media/proto/media/auth/v1/auth_pb.js';
import { connectEventBus } from '@media/eventbus';
import { loadConfig } from '@media/platform';
import { rateWatch, startTestStack, type TestStack } from '@media/stack/testing';
import { waitFor } from '@media/testkit';
import { build, createClients, gatewayConfigSpec } from '../src/index.js';
import { answersWithin } from './helpers.js';

let stack: TestStack;
let second: FastifyInstance;
let closeClients: () => void;
const calls = { authenticate: 0, countRequests: 0 };
/** What the second replica heard from Auth in its rate reports. */
const secondRate = rateWatch();

beforeAll(async () => {
  stack = await startTestStack({ AUTH_RATE_SYNC_MS: '20' });
  const config = loadConfig(gatewayConfigSpec, {
    LOG_LEVEL: 'silent',
    INTERNAL_TOKEN: stack.internalToken('gateway'),
    AUTH_URL: stack.urls.auth,
    JOBS_URL: stack.urls.jobs,
    BILLING_URL: stack.urls.billing,
    AUTH_RATE_SYNC_MS: '20',
  });
  const clients = createClients(config);
  closeClients = clients.close;
  // Counts the Auth calls the second replica makes.
  const auth = new Proxy(clients.auth, {
    get: (target, name: string) => {
      if (name in calls) calls[name as keyof typeof calls]++;
      return Reflect.get(target, name);
    },
  });
  // On the stack's rate clock, as Auth and the first replica (they compare window numbers).
  second = await build({
    config,
    clients: { ...clients, auth },
    bus: stack.bus,
    rate: { now: stack.rateClock.now, onReported: secondRate.onReported },
  });
});
afterAll(async () => {
  await second?.close();
  closeClients?.();
  await stack?.close();
});

const get = (app: FastifyInstance, authorization: string) => app.inject({ method: 'GET', url: '/account', headers: { authorization } });

test('after its first request, a key makes no call to Auth; admitted requests are reported in batches', async () => {
  stack.rateClock.freshWindow(); // so that the 40 are counted in one window
  const { keyId, authorization } = await stack.newAccount();
  calls.authenticate = calls.countRequests = 0;
  for (let i = 0; i < 40; i++) {
    const res = await get(second, authorization);
    expect(res.statusCode).toBe(200);
    expect(Number(res.headers['x-ratelimit-remaining'])).toBeLessThanOrEqual(299 - i);
  }
  // Auth's count of the 40 (its own first and the 39 admitted here) came back in a report.
  await waitFor('the 40 requests reported', () => secondRate.current(keyId) >= 40);
  expect(calls.authenticate).toBe(1);
  expect(calls.countRequests).toBeGreaterThanOrEqual(1);
  expect(calls.countRequests).toBeLessThan(40);
});

test('the 300-a-minute limit holds across both gateways', async () => {
  // The count is per minute window: start at the beginning of one so the test cannot straddle two.
  stack.rateClock.freshWindow();
  const { keyId, authorization } = await stack.newAccount();
  for (let i = 0; i < 150; i++) expect((await get(stack.gateway.app, authorization)).statusCode).toBe(200);
  // Both replicas report within their 20 ms sync; each answer carries Auth's count so far.
  await waitFor("the first replica's 150 reported", () => stack.gatewayRate.current(keyId) >= 150);
  for (let i = 0; i < 150; i++) expect((await get(second, authorization)).statusCode).toBe(200);
  await waitFor("the second replica's 150 reported", () => secondRate.current(keyId) >= 300);
  for (const [app, heard] of [
    [second, secondRate],
    [stack.gateway.app, stack.gatewayRate],
  ] as const) {
    await get(app, authorization); // a replica that had nothing to report hears the others' counts with its next report
    await waitFor('the replica to hear all 300', () => heard.current(keyId) >= 300);
    const res = await get(app, authorization);
    expect(res.statusCode).toBe(429);
    expect(res.json()).toEqual({ ok: false, error: 'Rate limit exceeded: 300 requests a minute per key. Retry shortly.' });
    expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  }
}, 90_000);

test('a revocation and a status change reach both replicas at once (on NATS, within moments)', async () => {
  const { accountId, keyId, authorization } = await stack.newAccount();
  const other = await stack.newKey(accountId);
  for (const app of [stack.gateway.app, second]) {
    expect((await get(app, authorization)).statusCode).toBe(200);
    expect((await get(app, other.authorization)).statusCode).toBe(200);
  }
  // The in-process bus hands the event over before the Auth call returns; NATS
  // (TEST_ADAPTERS=networked) moments later.
  const next = (app: FastifyInstance, auth: string, status: number) =>
    stack.networked?.natsUrl ? answersWithin(() => get(app, auth), status, 2000) : get(app, auth);
  await stack.admin.revokeKey({ keyId });
  for (const app of [stack.gateway.app, second])
    expect((await next(app, authorization, 401)).json()).toEqual({ ok: false, error: 'Invalid API key' });
  await stack.admin.setAccountStatus({ accountId, status: AccountStatus.SUSPENDED });
  for (const app of [stack.gateway.app, second]) expect((await next(app, other.authorization, 403)).statusCode).toBe(403);
});

test('a gateway that missed the events still drops a revoked key, and a suspended account, at its next report', async () => {
  // Its own bus: it hears no event, only Auth's answers to its rate reports.
  const deafBus = await connectEventBus({});
  const config = loadConfig(gatewayConfigSpec, {
    LOG_LEVEL: 'silent',
    INTERNAL_TOKEN: stack.internalToken('gateway'),
    AUTH_URL: stack.urls.auth,
    JOBS_URL: stack.urls.jobs,
    BILLING_URL: stack.urls.billing,
    AUTH_RATE_SYNC_MS: '20',
  });
  const clients = createClients(config);
  const deaf = await build({ config, clients, bus: deafBus, rate: { now: stack.rateClock.now } });
  try {
    const { accountId, keyId, authorization } = await stack.newAccount();
    const other = await stack.newKey(accountId);
    expect((await get(deaf, authorization)).statusCode).toBe(200);
    expect((await get(deaf, other.authorization)).statusCode).toBe(200);
    await stack.admin.revokeKey({ keyId });
    // Admitted on the old verdict until the next report (20 ms here) comes back refused.
    const until = (auth: string, status: number) => answersWithin(() => get(deaf, auth), status, 1000);
    expect((await until(authorization, 401)).json()).toEqual({ ok: false, error: 'Invalid API key' });
    await stack.admin.setAccountStatus({ accountId, status: AccountStatus.SUSPENDED });
    expect((await until(other.authorization, 403)).json()).toEqual({
      ok: false,
      error: 'This account is suspended. Contact support@example.com.',
    });
  } finally {
    await deaf.close();
    clients.close();
    await deafBus.close();
  }
});
