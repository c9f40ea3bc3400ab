// A gateway that loses Auth: it keeps admitting and counting the keys it knows, answers 503 for a
// key it has not met, and reports what it admitted once Auth is back, so the limit still counts
// every request. Auth sits behind a loopback TCP proxy that the test cuts and restores.
import type { FastifyInstance } from 'fastify';
import { loadConfig } from '@media/platform';
import { startTestStack, type TestStack } from '@media/stack/testing';
import { startTcpProxy, type TcpProxy } from '@media/testkit';
import { build, createClients, gatewayConfigSpec } from '../src/index.js';
import { sleep } from './helpers.js';

let stack: TestStack;
let gateway: FastifyInstance;
let closeClients: () => void;
let proxy: TcpProxy;

beforeAll(async () => {
  stack = await startTestStack({ AUTH_RATE_SYNC_MS: '20' });
  const auth = new URL(stack.urls.auth);
  proxy = await startTcpProxy(auth.hostname, Number(auth.port));
  const config = loadConfig(gatewayConfigSpec, {
    LOG_LEVEL: 'silent',
    INTERNAL_TOKEN: stack.internalToken('gateway'),
    AUTH_URL: `http://127.0.0.1:${proxy.port}`,
    STORAGE_URL: stack.urls.storage,
    JOBS_URL: stack.urls.jobs,
    PROBE_URL: stack.urls.probe,
    BILLING_URL: stack.urls.billing,
    AUTH_RATE_SYNC_MS: '20',
  });
  const clients = createClients(config);
  closeClients = clients.close;
  // Counts on the stack's rate clock, as Auth does (they compare window numbers).
  gateway = await build({ config, clients, bus: stack.bus, rate: { now: stack.rateClock.now } });
});
afterAll(async () => {
  await gateway?.close();
  closeClients?.();
  await proxy?.close();
  await stack?.close();
});

const listJobs = (app: FastifyInstance, authorization: string) =>
  app.inject({ method: 'GET', url: '/jobs?limit=1', headers: { authorization } });
const remaining = (res: { headers: Record<string, unknown> }) => Number(res.headers['x-ratelimit-remaining']);

test('Auth unreachable: known keys are still admitted and counted, unknown keys get 503, the counts reach Auth afterwards', async () => {
  // At the start of a minute window, so the counts compared below cannot straddle two.
  stack.rateClock.freshWindow();
  const known = await stack.newAccount();
  const unknown = await stack.newAccount();
  const first = await listJobs(gateway, known.authorization);
  expect(first.statusCode).toBe(200);
  // The first request's count is Auth's own (it answered it): nothing is pending here to report.

  await proxy.cut();
  for (let i = 0; i < 10; i++) {
    const res = await listJobs(gateway, known.authorization);
    expect(res.statusCode).toBe(200);
    expect(remaining(res)).toBe(remaining(first) - 1 - i);
  }
  const refused = await listJobs(gateway, unknown.authorization);
  expect({ status: refused.statusCode, body: refused.json(), retryAfter: refused.headers['retry-after'] }).toEqual({
    status: 503,
    body: { ok: false, error: 'A backing service is unavailable. Retry shortly.' },
    retryAfter: '5',
  });

  await proxy.restore();
  // Auth learns of the ten requests from the gateway's next report (after its breaker lets a
  // call through again); the other gateway, meeting the key for the first time, hears Auth's
  // count: the first request, the ten, and its own.
  const deadline = Date.now() + 15_000;
  let elsewhere = await listJobs(stack.gateway.app, known.authorization);
  while (remaining(elsewhere) > remaining(first) - 11 && Date.now() < deadline) {
    await listJobs(gateway, known.authorization); // keeps the gateway reporting
    await sleep(200);
    elsewhere = await listJobs(stack.gateway.app, known.authorization);
  }
  expect(elsewhere.statusCode).toBe(200);
  expect(remaining(elsewhere)).toBeLessThanOrEqual(remaining(first) - 11);
  // And the unknown key works again once the gateway's breaker for Auth has closed.
  let again = await listJobs(gateway, unknown.authorization);
  while (again.statusCode === 503 && Date.now() < deadline + 15_000) {
    await sleep(200);
    again = await listJobs(gateway, unknown.authorization);
  }
  expect({ status: again.statusCode, body: again.statusCode === 200 ? undefined : again.json() }).toEqual({ status: 200, body: undefined });
}, 60_000);
