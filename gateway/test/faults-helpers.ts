// Shared by the fault tests: the whole stack on networked infrastructure (the MongoDB-wire test
// server, nats-server, s3rver), timed calls, and the guarantees checked after an outage.
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { Events, metrics, subscribeEvent } from '@media/platform';
import type { ServiceName, StackOptions } from '@media/stack';
import { startTestStack, type TestStack } from '@media/stack/testing';
import {
  s3Env,
  startMongo,
  startNatsServer,
  startS3Server,
  startTcpProxy,
  type NatsTestServer,
  type S3TestServer,
  type TcpProxy,
  type TestMongo,
  waitFor,
} from '@media/testkit';
import { caller, sleep } from './helpers.js';

export const UNAVAILABLE = { ok: false, error: 'A backing service is unavailable. Retry shortly.' };

/**
 * A stack route that puts a loopback TCP proxy on the one connection from `caller` to `callee`,
 * for a test to freeze, cut and restore; `proxied` receives it once it listens.
 */
export function proxyOneRoute(
  caller: ServiceName,
  callee: ServiceName,
  proxied: (proxy: TcpProxy) => void,
): NonNullable<StackOptions['route']> {
  return async (from, to, url) => {
    if (from !== caller || to !== callee) return url;
    const { hostname, port } = new URL(url);
    const proxy = await startTcpProxy(hostname, Number(port));
    proxied(proxy);
    return `http://127.0.0.1:${proxy.port}`;
  };
}

/** UsageCharged events seen per request id, counted by a durable consumer (it survives a NATS restart). */
export async function countCharges(bus: TestStack['bus']): Promise<Map<string, number>> {
  const charges = new Map<string, number>();
  await subscribeEvent(bus, Events.usageCharged, async (e) => void charges.set(e.requestId, (charges.get(e.requestId) ?? 0) + 1), {
    durable: `faults_test_${randomBytes(4).toString('hex')}`,
  });
  return charges;
}

export interface FaultStack {
  stack: TestStack;
  mongo: TestMongo;
  nats: NatsTestServer;
  s3: S3TestServer;
  api: ReturnType<typeof caller>;
  /** UsageCharged events seen per request id (a durable consumer: survives a NATS restart). */
  charges: Map<string, number>;
  close(): Promise<void>;
}

export async function startFaultStack(env: Record<string, string> = {}): Promise<FaultStack> {
  const [mongo, nats, s3] = await Promise.all([startMongo(), startNatsServer(), startS3Server()]);
  const dbPrefix = `faults_${randomBytes(4).toString('hex')}_`;
  const stopInfra = async () => {
    if (mongo.external) await mongo.dropDatabases(dbPrefix).catch(() => undefined);
    await Promise.all([mongo.stop(), nats.stop(), s3.stop()]);
  };
  let stack: TestStack | undefined;
  try {
    stack = await startTestStack({
      MONGODB_URL: mongo.url,
      MONGODB_DB_PREFIX: dbPrefix,
      NATS_URL: nats.url,
      ...s3Env(s3),
      JOB_SCAN_INTERVAL_MS: '500',
      // The tests poll job states several times a second with one key; its 300-a-minute limit
      // would answer 429 and hide the states they check.
      RATE_LIMIT_PER_MINUTE: '100000',
      // FAULT_LOG_LEVEL=info shows the services' logs (breakers, retries) when a fault test fails.
      LOG_LEVEL: process.env.FAULT_LOG_LEVEL ?? 'silent',
      ...env,
    });
    const charges = await countCharges(stack.bus);
    const api = caller(stack, (await stack.newAccount()).authorization);
    const started = stack;
    return {
      stack,
      mongo,
      nats,
      s3,
      api,
      charges,
      async close() {
        await started.close();
        await stopInfra();
      },
    };
  } catch (err) {
    await stack?.close();
    await stopInfra();
    throw err;
  }
}

/**
 * A loopback listener on a stopped dependency's port that resets every connection (an outage the
 * clients see at once) and counts them: how a test tells whether a call reached the dependency.
 */
export async function resetCanary(port: number): Promise<{ readonly connections: number; close(): Promise<void> }> {
  let connections = 0;
  const server = createServer((socket) => {
    connections++;
    socket.resetAndDestroy();
  });
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(port, '127.0.0.1', resolve));
  return {
    get connections() {
      return connections;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/**
 * Resolves once a breaker of `dependency` (mongodb, nats, s3) in this process reads `state` on
 * media_breaker_open, the services' own "dependency down" figure: an outage held until it reads
 * open has been met by the services (3 failed calls in a row), however long that took.
 */
export async function breakerReads(dependency: 'mongodb' | 'nats' | 's3', state: 'open' | 'closed', ms = 30_000): Promise<void> {
  const want = state === 'open' ? 1 : 0;
  await waitFor(
    `the ${dependency} breaker to read ${state}`,
    async () => (await metrics.breakerOpen.get()).values.some((v) => v.labels.dependency === dependency && v.value === want),
    ms,
  );
}

/** Runs a call and measures it. */
export async function timed<T>(call: () => Promise<T>): Promise<{ ms: number; res: T }> {
  const t0 = performance.now();
  const res = await call();
  return { ms: Math.round(performance.now() - t0), res };
}

/** Polls until `ok` holds for the call's result (or throws after `ms`). */
export async function eventually<T>(call: () => Promise<T>, ok: (res: T) => boolean, ms = 15_000): Promise<{ res: T; ms: number }> {
  const t0 = Date.now();
  for (;;) {
    const res = await call();
    if (ok(res)) return { res, ms: Date.now() - t0 };
    if (Date.now() - t0 > ms) throw new Error(`no success within ${ms} ms; last answer: ${JSON.stringify(res)}`);
    await sleep(200);
  }
}

type Api = FaultStack['api'];

/** Uploads bytes as a file (presigned PUT to S3) and reads its info once, so Storage records it. */
export async function upload(api: Api, name: string, bytes: Buffer, dirId?: string): Promise<{ dirId: string; filePath: string }> {
  const { body } = await api('POST', '/file', dirId ? { file_name: name, dir_id: dirId } : { file_name: name });
  const put = await fetch(body.upload.url, { method: 'PUT', headers: body.upload.headers, body: bytes });
  if (put.status !== 200) throw new Error(`upload of ${name} answered ${put.status}`);
  const info = await api('GET', `/file/${body.file.file_path}`);
  if (info.status !== 200) throw new Error(`file info of ${name} answered ${info.status}`);
  return { dirId: body.file.dir_id, filePath: body.file.file_path };
}

export const thumbnail = (filePath: string, out: string) => ({
  task: { inputs: [{ file_path: filePath }], outputs: [{ file: out, options: ['-frames:v', '1'] }] },
});

/** Submits `count` async thumbnail jobs of one input (each must be accepted); resolves once one is running. */
export async function submitUntilOneRuns(api: Api, filePath: string, count = 8): Promise<string[]> {
  const jobIds: string[] = [];
  for (let n = 0; n < count; n++) {
    const res = await api('POST', '/ffmpeg/process/async', thumbnail(filePath, `t${n}.png`));
    expect(res.status).toBe(202);
    jobIds.push(res.body.job_id as string);
  }
  await eventually(
    () => Promise.all(jobIds.map(async (id) => (await api('GET', `/job/${id}`)).body.status as string)),
    (s) => s.includes('processing'),
    10_000,
  );
  return jobIds;
}

/**
 * After an outage: every accepted job ends completed (none lost, none stuck), its output can be
 * downloaded, and it is charged exactly once (one UsageCharged event, one billing row).
 * Answers how long it took for all of them to end.
 */
export async function expectAllCompletedAndChargedOnce(
  f: Pick<FaultStack, 'api' | 'charges'>,
  jobIds: string[],
  /** An uploaded file_path: the marker job's input (see below). */
  markerInput: string,
  ms = 30_000,
): Promise<number> {
  const t0 = Date.now();
  const final = new Map<string, any>();
  // A job's state, or what the API answered instead (so a failure says which it was).
  const stateOf = async (id: string) => {
    const { status, body } = await f.api('GET', `/job/${id}`);
    if (typeof body.status === 'string') return body;
    return { status: `HTTP ${status}: ${body.error ?? JSON.stringify(body)}` };
  };
  while (final.size < jobIds.length && Date.now() - t0 < ms) {
    for (const id of jobIds) {
      if (final.has(id)) continue;
      const body = await stateOf(id);
      if (body.status === 'completed' || body.status === 'failed' || body.status === 'cancelled') final.set(id, body);
    }
    if (final.size < jobIds.length) await sleep(200);
  }
  const doneMs = Date.now() - t0;
  const states = Object.fromEntries(await Promise.all(jobIds.map(async (id) => [id, final.get(id)?.status ?? (await stateOf(id)).status])));
  expect(states).toEqual(Object.fromEntries(jobIds.map((id) => [id, 'completed'])));
  for (const id of jobIds) {
    const job = final.get(id);
    expect(job.result).toHaveLength(1);
    const png = await fetch(job.result[0].download_url);
    expect(png.status).toBe(200);
    expect(
      Buffer.from(await png.arrayBuffer())
        .subarray(1, 4)
        .toString(),
    ).toBe('PNG');
  }
  // Billing rows (one per request id) and the events behind them: exactly one each.
  // An answer that is not the rows (a service still recovering) is polled again, and named if it stays.
  const usage = await eventually(
    async () => f.api('GET', '/account/usage?format=json&limit=10000'),
    (r) => r.status === 200 && jobIds.every((id) => (r.body.rows as { request_id: string }[]).some((row) => row.request_id === id)),
  );
  const rows = usage.res.body.rows as { request_id: string }[];
  for (const id of jobIds) expect(rows.filter((row) => row.request_id === id)).toHaveLength(1);
  await eventually(
    async () => jobIds.map((id) => f.charges.get(id) ?? 0),
    (n) => n.every((c) => c >= 1),
  );
  // A second event, if any, has arrived once the bus is drained: no run of the account in flight,
  // and the charge of a marker job run now (published after any duplicate, on the same subject:
  // delivered in order) has come.
  await eventually(
    async () => f.api('GET', '/account'),
    (r) => r.status === 200 && r.body.jobs.active === 0,
  );
  const marker = await eventually(
    async () => f.api('POST', '/ffmpeg/process', thumbnail(markerInput, 'marker.png')),
    (r) => r.status === 200,
  );
  await eventually(
    async () => f.charges.get(marker.res.body.request_id as string) ?? 0,
    (n) => n >= 1,
  );
  expect(Object.fromEntries(jobIds.map((id) => [id, f.charges.get(id)]))).toEqual(Object.fromEntries(jobIds.map((id) => [id, 1])));
  return doneMs;
}
