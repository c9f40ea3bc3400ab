// The balancer's readiness check of a service replica, against a stand-in for the service's
// grpc.health.v1 (HTTP/2 cleartext, the Connect protocol's JSON): UP while it answers SERVING,
// DOWN when it answers NOT_SERVING (its database unreachable) or stops answering (SIGSTOP, a
// frozen node), back UP when it serves again. The whole cluster's test pauses a real Auth replica.
import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import { findBinary, freePorts, tempDir, underCI } from '@media/testkit';
import { haproxy, waitForServers } from '../src/haproxy.js';
import { ClusterProcess } from '../src/process.js';

const skip = findBinary('haproxy') === undefined && !underCI;
if (skip) console.warn('tools/cluster: haproxy test skipped, haproxy missing (apt-get install -y haproxy)');
const suite = skip ? describe.skip : describe;

suite('haproxy: a service replica checked as its readinessProbe (grpc.health.v1)', () => {
  let status = 'SERVING';
  /** Answers nothing while set: a process that accepts connections but never replies. */
  let frozen = false;
  const bodies: string[] = [];
  const server = http2.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (d: string) => (body += d));
    req.on('end', () => {
      bodies.push(`${req.method} ${req.url} ${req.headers['content-type']} ${body}`);
      if (frozen) return;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ status }));
    });
  });
  let balancer: ClusterProcess;
  let statsPort: number;
  let dir: Awaited<ReturnType<typeof tempDir>>;

  beforeAll(async () => {
    dir = await tempDir('haproxy-test-');
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    const [stats, frontend] = await freePorts(2);
    statsPort = stats!;
    balancer = new ClusterProcess(
      haproxy(
        [
          {
            name: 'svc-billing-50055',
            mode: 'tcp',
            port: frontend!,
            backends: [{ name: 'billing-1', port, check: { kind: 'grpc', port, service: '' } }],
          },
        ],
        statsPort,
        dir.path,
      ),
    );
    await balancer.start();
  }, 30_000);

  afterAll(async () => {
    await balancer?.stop();
    server.close();
    await dir?.remove();
  });

  test('UP while SERVING; DOWN on NOT_SERVING and while it does not answer; UP again once it serves', async () => {
    await waitForServers(statsPort, 'UP', 'billing-1', 10_000);
    // The overall status, as the chart's readinessProbe asks (no service name).
    expect(bodies[0]).toBe('POST /grpc.health.v1.Health/Check application/json {}');
    status = 'NOT_SERVING';
    await waitForServers(statsPort, 'DOWN', 'billing-1', 10_000);
    status = 'SERVING';
    await waitForServers(statsPort, 'UP', 'billing-1', 10_000);
    frozen = true;
    // Two checks that each wait out `timeout check` (2 s).
    await waitForServers(statsPort, 'DOWN', 'billing-1', 20_000);
    frozen = false;
    await waitForServers(statsPort, 'UP', 'billing-1', 10_000);
  }, 60_000);
});
