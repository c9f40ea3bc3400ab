// A backing service whose connection closes while a request waits on it (the service shutting
// down in a rolling restart, a proxy dropping the connection): the caller gets the spec's 503 with
// Retry-After, not a 500, and the next request after the service is back is served. Jobs sits
// behind a loopback TCP proxy that holds the call and then drops the connection cleanly.
import { startTestStack, type TestStack } from '@media/stack/testing';
import { waitFor, type TcpProxy } from '@media/testkit';
import { proxyOneRoute } from './faults-helpers.js';
import { caller } from './helpers.js';

let stack: TestStack;
let proxy: TcpProxy | undefined;

beforeAll(async () => {
  stack = await startTestStack({}, { route: proxyOneRoute('gateway', 'jobs', (p) => (proxy = p)) });
});
afterAll(async () => {
  await stack?.close();
  await proxy?.close();
});

test('a service that drops the connection mid-request: 503 + Retry-After, then served again', async () => {
  const api = caller(stack, (await stack.newAccount()).authorization);
  const listJobs = () => api('GET', '/jobs?limit=1');
  expect((await listJobs()).status).toBe(200);

  proxy!.freeze();
  const pending = listJobs();
  await waitFor('the call on the wire, unanswered', () => proxy!.held > 0);
  await proxy!.cut();
  const res = await pending;
  expect({ status: res.status, body: res.body, retryAfter: res.headers['retry-after'] }).toEqual({
    status: 503,
    body: { ok: false, error: 'A backing service is unavailable. Retry shortly.' },
    retryAfter: '5',
  });
  expect(res.headers['x-request-id']).toBeTruthy();

  await proxy!.restore();
  proxy!.thaw();
  const again = await listJobs();
  expect({ status: again.status, body: again.status === 200 ? 'ok' : again.body }).toEqual({ status: 200, body: 'ok' });
});
