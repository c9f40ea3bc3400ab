// npm run cluster's topology, started through its API with 2 replicas: every process up, the API
// answering through haproxy (an account and key from the admin CLI, a directory, an upload to the
// signed URL through the balancer, a sync ffmpeg run), still answering after one gateway and one
// Jobs replica are killed with SIGKILL, a frozen Auth replica taken out of the balancer by its
// readiness check, and nothing left running after stop().
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import http2 from 'node:http2';
import { join } from 'node:path';
import { tempDir, underCI } from '@media/testkit';
import { callApi } from './api.js';
import { missingBinaries, startCluster, type Cluster } from '../src/index.js';

const { missing, hint } = missingBinaries();
// Outside CI a machine without the Debian packages skips, saying so; under CI that is a failure.
const skip = missing.length > 0 && !underCI;
if (skip) console.warn(`tools/cluster: skipped, ${missing.join(' and ')} missing (${hint})`);
const suite = skip ? describe.skip : describe;

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

suite('npm run cluster (--replicas 2)', () => {
  let cluster: Cluster;
  let dir: Awaited<ReturnType<typeof tempDir>>;
  let key: string;
  let filePath: string;
  const pids: number[] = [];
  /** Processes that exited without being stopped or killed through the handle. */
  const crashes: string[] = [];

  beforeAll(async () => {
    dir = await tempDir('cluster-test-');
    cluster = await startCluster({
      replicas: 2,
      onUnexpectedExit: (name, how, log) => crashes.push(`${name} (${how}): ${log.slice(-2000)}`),
    });
    pids.push(...cluster.list().map((p) => p.pid!));
  }, 240_000);

  afterAll(async () => {
    await cluster?.stop();
    await dir?.remove();
  }, 120_000);

  const api = (method: string, path: string, body?: unknown) => callApi(cluster.publicUrl, key, method, path, body);
  /** A sync run that reads the uploaded clip and writes nothing (`-f null`). */
  const nullRun = () =>
    api('POST', '/ffmpeg/process', {
      task: { inputs: [{ file_path: filePath }], outputs: [{ file: 'out.null', options: ['-f', 'null'] }] },
    });

  test('every process is up: 3 NATS nodes, the stores, haproxy, 2 of each service and gateway, 1 console', () => {
    const byKind = new Map<string, number>();
    for (const p of cluster.list()) byKind.set(p.kind, (byKind.get(p.kind) ?? 0) + 1);
    expect(Object.fromEntries(byKind)).toEqual({
      nats: 3,
      ...(process.env.MONGODB_URL ? {} : { mongo: 1 }),
      s3: 1,
      haproxy: 1,
      auth: 2,
      billing: 2,
      storage: 2,
      probe: 2,
      jobs: 2,
      gateway: 2,
      console: 1,
    });
    expect(pids.every((pid) => Number.isInteger(pid) && alive(pid))).toBe(true);
  });

  test('the API answers through the balancer: admin CLI key, a directory, an upload to the signed URL, a sync run', async () => {
    const { account_id } = await cluster.admin('account', 'create');
    const created = await cluster.admin('key', 'create', '--account', String(account_id), '--name', 'cluster');
    key = String(created.authorization);
    const directory = await api('POST', '/directory', { ttl: 3600 });
    expect(directory).toMatchObject({ status: 200, body: { ok: true } });

    const clip = join(dir.path, 'clip.mp4');
    execFileSync('ffmpeg', [
      '-v',
      'error',
      '-f',
      'lavfi',
      '-i',
      'testsrc=size=160x120:rate=10:duration=1',
      '-pix_fmt',
      'yuv420p',
      '-y',
      clip,
    ]);
    const reg = await api('POST', '/file', { file_name: 'clip.mp4', dir_id: directory.body.directory.id });
    expect(reg.status).toBe(200);
    // Signed for the balancer's frontend (S3_PUBLIC_ENDPOINT), which passes the Host header on to s3rver.
    const signedPort = cluster.get('haproxy').spec.ports['signed-urls'];
    expect(new URL(reg.body.upload.url).port).toBe(String(signedPort));
    const put = await fetch(reg.body.upload.url, { method: 'PUT', headers: reg.body.upload.headers, body: readFileSync(clip) });
    expect(put.status).toBe(200);
    filePath = reg.body.file.file_path;

    const run = await nullRun();
    expect(run).toMatchObject({ status: 200, body: { ok: true } });
  }, 120_000);

  test('after SIGKILL of one gateway and one Jobs replica, requests still succeed through the balancer', async () => {
    const gateway = cluster.get('gateway-1');
    const jobs = cluster.get('jobs-1');
    const [gatewayPid, jobsPid] = [gateway.pid!, jobs.pid!];
    await Promise.all([cluster.kill('gateway-1'), cluster.kill('jobs-1')]);
    expect([alive(gatewayPid), alive(jobsPid)]).toEqual([false, false]);
    // The balancer notices (its health checks), as an Ingress drops a pod that fails readiness.
    await cluster.waitForBalancer('DOWN', 'gateway-1', 10_000);
    await cluster.waitForBalancer('DOWN', 'jobs-1', 10_000);
    for (let i = 0; i < 4; i++) expect((await api('GET', '/account')).status).toBe(200);
    expect(await nullRun()).toMatchObject({ status: 200, body: { ok: true } });
    expect((await api('POST', '/directory')).status).toBe(200);
  }, 120_000);

  /** grpc.health.v1's overall status through a balancer frontend, on a connection of its own (a replica picked anew). */
  const healthThrough = (port: number) =>
    new Promise<string>((resolve, reject) => {
      const session = http2.connect(`http://127.0.0.1:${port}`);
      const fail = (err: Error) => (session.destroy(), reject(err));
      const deadline = setTimeout(() => fail(new Error(`no health answer through port ${port} within 5 s`)), 5000);
      session.on('error', fail);
      const req = session.request({ ':method': 'POST', ':path': '/grpc.health.v1.Health/Check', 'content-type': 'application/json' });
      let body = '';
      req.setEncoding('utf8');
      req.on('data', (d: string) => (body += d));
      req.on('error', fail);
      req.on('end', () => {
        clearTimeout(deadline);
        session.close();
        resolve(String(JSON.parse(body).status));
      });
      req.end('{}');
    });

  test('a frozen Auth replica (SIGSTOP) fails its readiness check and gets no new connection; killed, requests still succeed', async () => {
    const ports = cluster.get('haproxy').spec.ports;
    const authFrontends = [ports['svc-auth-50051']!, ports['svc-auth-50061']!];
    cluster.pause('auth-1');
    // A TCP check would never see it: the kernel still accepts connections for a stopped process.
    await cluster.waitForBalancer('DOWN', 'auth-1', 20_000);
    // Round robin would give every other new connection to auth-1: none hangs.
    for (const port of authFrontends) for (let i = 0; i < 4; i++) expect(await healthThrough(port)).toBe('SERVING');
    // Connections already open to it stay (as to an unready pod); killed, they break and reconnect
    // to auth-2. A gateway whose readiness session was on auth-1 is back once it reconnects.
    await cluster.kill('auth-1');
    await cluster.waitForBalancer('UP', 'gateway-2', 60_000);
    for (let i = 0; i < 4; i++) expect((await api('GET', '/account')).status).toBe(200);
    expect((await api('POST', '/directory')).status).toBe(200);
  }, 120_000);

  test('stop() ends every process it started', async () => {
    expect(crashes).toEqual([]);
    await cluster.stop();
    expect(pids.filter(alive)).toEqual([]);
    expect(cluster.list().every((p) => !p.running)).toBe(true);
  }, 120_000);
});
