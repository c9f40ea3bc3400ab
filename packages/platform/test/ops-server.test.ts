// The operations listener: /readyz follows the gRPC health of what the process depends on (a
// database down, a service gone), /livez does not; /metrics is Prometheus text.
import { pino } from 'pino';
import { metrics, startConnectServer, startOpsServer, type RunningOps, type RunningServer } from '../src/index.js';

let databaseUp = true;
let service: RunningServer;
let ops: RunningOps;
beforeAll(async () => {
  service = await startConnectServer({
    name: 'ops-test',
    logger: pino({ level: 'silent' }),
    host: '127.0.0.1',
    port: 0,
    routes: () => {},
    health: { services: [], check: async () => databaseUp },
  });
  ops = await startOpsServer({ port: 0, host: '127.0.0.1', readiness: { store: service.url } });
});
afterAll(async () => {
  await ops?.close();
  await service?.close();
});

const get = async (path: string) => {
  const res = await fetch(`${ops.url}${path}`);
  return { status: res.status, type: res.headers.get('content-type'), text: await res.text() };
};

test('ready while the dependency is healthy; 503 naming it while its database is down; live throughout', async () => {
  expect(await get('/readyz')).toMatchObject({ status: 200, text: '{"ready":true,"checks":{"store":"ok"}}\n' });
  databaseUp = false;
  expect(await get('/readyz')).toMatchObject({ status: 503, text: '{"ready":false,"checks":{"store":"not serving"}}\n' });
  expect((await get('/livez')).status).toBe(200);
  databaseUp = true;
  expect((await get('/readyz')).status).toBe(200);
});

test('a dependency that cannot be reached makes the process unready', async () => {
  const gone = await startOpsServer({ port: 0, host: '127.0.0.1', readiness: { jobs: 'http://127.0.0.1:9' } });
  try {
    const res = await fetch(`${gone.url}/readyz`);
    expect(res.status).toBe(503);
    expect(((await res.json()) as { checks: { jobs: string } }).checks.jobs).toMatch(/^unreachable: /);
  } finally {
    await gone.close();
  }
});

test("a reported dependency is named on /readyz without making the process unready or holding the answer (a gateway's backends)", async () => {
  const gateway = await startOpsServer({
    port: 0,
    host: '127.0.0.1',
    readiness: {},
    reported: { jobs: 'http://127.0.0.1:9', store: service.url },
  });
  const readyz = async () => {
    const res = await fetch(`${gateway.url}/readyz`);
    return { status: res.status, body: (await res.json()) as { ready: boolean; checks: { jobs: string; store: string } } };
  };
  try {
    // The first answer comes before any check has finished.
    expect(await readyz()).toEqual({ status: 200, body: { ready: true, checks: { jobs: 'not checked yet', store: 'not checked yet' } } });
    let last = await readyz();
    for (const until = Date.now() + 10_000; !last.body.checks.jobs.startsWith('unreachable') && Date.now() < until; ) {
      await new Promise((r) => setTimeout(r, 20));
      last = await readyz();
    }
    expect(last).toMatchObject({ status: 200, body: { ready: true, checks: { store: 'ok' } } });
    expect(last.body.checks.jobs).toMatch(/^unreachable: /);
  } finally {
    await gateway.close();
  }
});

test('/metrics: Prometheus text with the default process metrics and the service counters', async () => {
  metrics.jobsFinished.inc({ kind: 'sync', outcome: 'completed' });
  const res = await get('/metrics');
  expect(res.status).toBe(200);
  expect(res.type).toMatch(/^text\/plain; version=0\.0\.4/);
  expect(res.text).toMatch(/^process_cpu_user_seconds_total \d/m);
  expect(res.text).toMatch(/^media_jobs_finished_total\{kind="sync",outcome="completed"\} [1-9]/m);
  expect((await get('/other')).status).toBe(404);
});

test('close() ends while a client is still sending its request (a scraper cannot hold shutdown)', async () => {
  const { connect } = await import('node:net');
  const own = await startOpsServer({ port: 0, host: '127.0.0.1', readiness: {} });
  const socket = connect(Number(new URL(own.url).port), '127.0.0.1');
  socket.on('error', () => {}); // cut with a reset: expected
  const ended = new Promise((resolve) => socket.once('close', resolve));
  // A first request answered: the server holds this connection.
  const answered = new Promise((resolve) => socket.once('data', resolve));
  socket.write('GET /livez HTTP/1.1\r\nHost: x\r\n\r\n');
  await answered;
  socket.write('GET /metrics HTTP/1.1\r\nHost: x\r\n'); // never finished
  // Had close() waited for the request, node's headers timeout (60 s) would have ended it first.
  const waited = new Promise((r) => setTimeout(r, 60_000, 'waited').unref());
  expect(await Promise.race([own.close().then(() => 'closed'), waited])).toBe('closed');
  await ended; // the connection was cut
  socket.destroy();
});
