// A backing service whose connection closes while a request waits on it (the service shutting
// down in a rolling restart, a proxy dropping the connection): the caller gets the spec's 503 with
// Retry-After, not a 500, and the next request after the service is back is served. Jobs sits
// behind a loopback TCP proxy that holds the call and then drops the connection cleanly.
import type { FastifyInstance } from 'fastify';
import { loadConfig } from '@media/platform';
import { startTestStack, type TestStack } from '@media/stack';
import { startTcpProxy, type TcpProxy } from '@media/testkit';
import { build, createClients, gatewayConfigSpec } from '../src/index.js';
import { sleep } from './helpers.js';

let stack: TestStack;
let gateway: FastifyInstance;
let closeClients: () => void;
let proxy: TcpProxy;

beforeAll(async () => {
  stack = await startTestStack();
  const jobs = new URL(stack.urls.jobs);
  proxy = await startTcpProxy(jobs.hostname, Number(jobs.port));
  const config = loadConfig(gatewayConfigSpec, {
    LOG_LEVEL: 'silent',
    AUTH_URL: stack.urls.auth,
    STORAGE_URL: stack.urls.storage,
    JOBS_URL: `http://127.0.0.1:${proxy.port}`,
    PROBE_URL: stack.urls.probe,
    BILLING_URL: stack.urls.billing,
  });
  const clients = createClients(config);
  closeClients = clients.close;
  gateway = await build({ config, clients, bus: stack.bus });
});
afterAll(async () => {
  await gateway?.close();
  closeClients?.();
  await proxy?.close();
  await stack?.close();
});

test('a service that drops the connection mid-request: 503 + Retry-After, then served again', async () => {
  const { authorization } = await stack.newAccount();
  const listJobs = () => gateway.inject({ method: 'GET', url: '/jobs?limit=1', headers: { authorization } });
  expect((await listJobs()).statusCode).toBe(200);

  proxy.freeze();
  const pending = listJobs();
  await sleep(200); // the call is on the wire, unanswered
  await proxy.cut();
  const res = await pending;
  expect({ status: res.statusCode, body: res.json(), retryAfter: res.headers['retry-after'] }).toEqual({
    status: 503,
    body: { ok: false, error: 'A backing service is unavailable. Retry shortly.' },
    retryAfter: '5',
  });
  expect(res.headers['x-request-id']).toBeTruthy();

  proxy.thaw();
  await proxy.restore();
  const again = await listJobs();
  expect({ status: again.statusCode, body: again.statusCode === 200 ? 'ok' : again.body }).toEqual({ status: 200, body: 'ok' });
});
