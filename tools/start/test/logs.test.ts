// One request id follows a request through the gateway's and the services' JSON log lines.
import { spawnStack, waitFor, type Spawned } from '@media/testkit';

let stack: Spawned;
beforeAll(async () => {
  stack = await spawnStack({ LOG_LEVEL: 'debug' });
});
afterAll(() => stack?.stop());

/** The stack's log lines so far, each parsed (JSON logs only: a line that is not JSON fails). */
const logLines = () =>
  stack
    .logs()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);

test('the X-Request-Id of a response appears in gateway and Auth service log lines', async () => {
  const res = await fetch(`${stack.baseUrl}/account`, { headers: { authorization: 'Basic nope' } });
  const requestId = res.headers.get('x-request-id')!;
  expect(requestId).toMatch(/^req_/);
  // The processes write their lines as they go: the gateway's and Auth's are waited for.
  await waitFor("the request's log lines", () => {
    const mine = logLines().filter((l) => l.requestId === requestId);
    return mine.some((l) => l.service === 'gateway') && mine.some((l) => l.service === 'auth');
  });
  const lines = logLines();
  const mine = lines.filter((l) => l.requestId === requestId);
  expect(mine.some((l) => l.service === 'gateway')).toBe(true);
  expect(mine.some((l) => l.service === 'auth' && l.rpc === 'Authenticate')).toBe(true);
  // JSON logs only: every line parsed.
  expect(lines.length).toBeGreaterThan(0);
});

test('a path the router refuses is answered and logged like any request, with its id', async () => {
  const res = await fetch(`${stack.baseUrl}/job/%zz`);
  expect(res.status).toBe(400);
  const requestId = res.headers.get('x-request-id')!;
  expect(requestId).toMatch(/^req_/);
  await waitFor("the request's log line", () => logLines().some((l) => l.requestId === requestId));
  const lines = logLines();
  expect(lines.filter((l) => l.requestId === requestId)).toEqual([
    expect.objectContaining({ service: 'gateway', msg: 'request completed', method: 'GET', url: '/job/%zz', statusCode: 400 }),
  ]);
});
