// The balancer, in the roles Kubernetes gives an Ingress and its Services: HTTP in front of the
// gateways and of the console, HTTP in front of the store's signed URLs (the Host header passes
// unchanged, so SigV4 still verifies), and TCP for each Service another component calls
// (kube-proxy balances connections, not requests; a gRPC client's HTTP/2 connection stays on one
// replica until it breaks). Each replica is checked as its pod's readinessProbe: a replica that
// is not ready gets no new connection, as a Service leaves an unready pod out of its endpoints,
// and, as there, connections already open to it are not cut.
import { writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { waitFor, waitForPort } from '@media/testkit';
import { baseEnv } from './infra.js';
import type { ProcessSpec } from './process.js';
import { findBinary } from '@media/testkit';

/** A readiness check on one of the replica's ports. */
export type HealthCheck =
  /** GET `path` answers 200. */
  | { kind: 'http'; port: number; path: string }
  /** grpc.health.v1 Check of `service` ("" for the overall status) answers SERVING. */
  | { kind: 'grpc'; port: number; service: string }
  /** The port accepts a connection. */
  | { kind: 'tcp'; port: number };

export interface Backend {
  name: string;
  port: number;
  /** Its readiness (the frontend's backends all have the same kind); none: a TCP connect to `port`. */
  check?: HealthCheck;
}

export interface Frontend {
  /** haproxy's section name: `api`, `svc-auth-50051`... */
  name: string;
  mode: 'http' | 'tcp';
  port: number;
  backends: Backend[];
}

// Checked every 500 ms: a dead replica is out after 2 failures, back after 1 success. A refused
// connection is retried on another server at once (redispatch), so a kill loses no new request.
// A frozen process (SIGSTOP) still accepts connections (the kernel's backlog): only a check that
// waits for an answer (up to `timeout check`) sees it.
const CHECK = 'inter 500ms fall 2 rise 1';

/** A double-quoted haproxy argument. */
const quote = (text: string) => `"${text.replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"`;

/** haproxy's lines for a frontend whose replicas are checked with `check`. */
function checkLines(check: HealthCheck | undefined): string[] {
  if (check?.kind === 'http') return [`  option httpchk GET ${check.path}`, '  http-check expect status 200'];
  if (check?.kind !== 'grpc') return [];
  // The Health service over HTTP/2 in the Connect protocol's JSON form, which every service
  // serves beside gRPC (haproxy 2.6 cannot frame a gRPC body): {"status":"SERVING"} when ready.
  // An absolute URI gives the request the :authority Node's HTTP/2 server requires.
  const body = JSON.stringify(check.service ? { service: check.service } : {});
  return [
    '  option httpchk',
    '  http-check connect proto h2',
    `  http-check send meth POST uri http://127.0.0.1/grpc.health.v1.Health/Check hdr content-type application/json body ${quote(body)}`,
    `  http-check expect string ${quote('"status":"SERVING"')}`, // not in {"status":"NOT_SERVING"}
  ];
}

/** haproxy's runtime API socket in the cluster's folder (`set server ... state drain`). */
export const adminSocket = (dir: string) => join(dir, 'haproxy.sock');

export function haproxyConfig(frontends: Frontend[], statsPort: number, socket?: string): string {
  const lines = [
    'global',
    '  maxconn 8192',
    ...(socket ? [`  stats socket ${socket} level admin`] : []),
    'defaults',
    '  timeout connect 2s',
    // A replica slow to answer its check (a loaded machine) is not taken for dead: the ops
    // listener's /readyz takes up to 2 s itself, and Kubernetes' probes wait 3-5 s.
    '  timeout check 2s',
    // Long: a sync ffmpeg run answers only when done; the services bound their own times.
    '  timeout client 10m',
    '  timeout server 10m',
    '  timeout tunnel 1h',
    '  retries 3',
    '  option redispatch 1',
    'frontend stats',
    '  mode http',
    `  bind 127.0.0.1:${statsPort}`,
    '  stats enable',
    '  stats uri /stats',
  ];
  for (const f of frontends) {
    lines.push(`listen ${f.name}`, `  mode ${f.mode}`, `  bind 127.0.0.1:${f.port}`, '  balance roundrobin');
    lines.push(...checkLines(f.backends[0]?.check));
    // Only a refused connection is retried: a request a server may have begun (a sync run) never is.
    if (f.mode === 'http') lines.push('  option forwardfor', '  retry-on conn-failure');
    for (const b of f.backends)
      lines.push(
        `  server ${b.name} 127.0.0.1:${b.port} check ${b.check && b.check.port !== b.port ? `port ${b.check.port} ` : ''}${CHECK}`,
      );
  }
  return `${lines.join('\n')}\n`;
}

export function haproxy(frontends: Frontend[], statsPort: number, dir: string): ProcessSpec {
  const bin = findBinary('haproxy');
  if (!bin) throw new Error('haproxy not found (apt-get install -y haproxy)');
  const file = join(dir, 'haproxy.cfg');
  writeFileSync(file, haproxyConfig(frontends, statsPort, adminSocket(dir)));
  return {
    name: 'haproxy',
    kind: 'haproxy',
    // -db: in the foreground, logging to stderr; SIGTERM stops it at once.
    argv: [bin, '-db', '-f', file],
    env: baseEnv(),
    ports: { stats: statsPort, ...Object.fromEntries(frontends.map((f) => [f.name, f.port])) },
    ready: (exited) => waitForPort(statsPort, 10_000, 'haproxy', exited),
    stopGraceMs: 5000,
  };
}

export interface ServerState {
  frontend: string;
  server: string;
  /** haproxy's status: UP, DOWN, MAINT, DRAIN, `UP 1/2` while rising... */
  status: string;
  /** Sessions (requests or connections) open to it now. */
  sessions: number;
}

/** Every server's state, from the stats page's CSV. */
export async function serverStates(statsPort: number): Promise<ServerState[]> {
  const csv = await (await fetch(`http://127.0.0.1:${statsPort}/stats;csv`)).text();
  const rows = csv.split('\n').filter((l) => l && !l.startsWith('#'));
  return rows
    .map((l) => l.split(','))
    .filter((c) => c[1] !== 'FRONTEND' && c[1] !== 'BACKEND')
    .map((c) => ({ frontend: c[0]!, server: c[1]!, status: c[17]!, sessions: Number(c[4]) }));
}

/** Waits until haproxy sees `server` (every server of every frontend when omitted) in `status`. */
export async function waitForServers(statsPort: number, status: 'UP' | 'DOWN', server?: string, timeoutMs = 30_000): Promise<void> {
  let last: ServerState[] = [];
  await waitFor(
    `haproxy: ${server ?? 'every server'} ${status}`,
    async () => {
      last = await serverStates(statsPort).catch(() => []);
      const watched = last.filter((s) => server === undefined || s.server === server);
      return watched.length > 0 && watched.every((s) => s.status === status);
    },
    timeoutMs,
  ).catch((err: Error) => {
    throw new Error(`${err.message}; last seen: ${last.map((s) => `${s.frontend}/${s.server} ${s.status}`).join(', ')}`);
  });
}

/**
 * Sets `server` (in every frontend that has it) to `state` through the runtime API: `drain` takes
 * it out of the balancing while what is open to it finishes (Kubernetes taking a terminating pod
 * out of its Service's endpoints), `ready` puts it back (its checks then decide).
 */
export async function setServerState(socket: string, statsPort: number, server: string, state: 'drain' | 'ready'): Promise<void> {
  const frontends = (await serverStates(statsPort)).filter((s) => s.server === server).map((s) => s.frontend);
  for (const frontend of frontends) {
    const answer = await runtimeCommand(socket, `set server ${frontend}/${server} state ${state}`);
    if (answer.trim()) throw new Error(`haproxy: set server ${frontend}/${server} state ${state}: ${answer.trim()}`);
  }
}

/** One command on haproxy's runtime API; its answer (empty when it succeeded). */
function runtimeCommand(socket: string, command: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let answer = '';
    const conn = connect(socket, () => conn.end(`${command}\n`));
    conn.setEncoding('utf8');
    conn.on('data', (chunk: string) => (answer += chunk));
    conn.on('end', () => resolve(answer));
    conn.on('error', reject);
  });
}
