// startCluster(): the chart's topology on this machine, every process separate and on loopback,
// ports chosen free: a 3-node NATS JetStream cluster (streams R3), MongoDB (the MongoDB-wire
// server, or MONGODB_URL), s3rver, N replicas of each service and of the gateway, one console,
// and haproxy in front. The handle names every process, so a fault injector can kill, pause and
// restart any of them; stop() ends everything it started, and a failed start stops what it had.
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { waitFor, waitForPort } from '@media/testkit';
import {
  COMPONENTS,
  componentRun,
  EXTRA_PORTS,
  readiness,
  renderChart,
  replicaEnv,
  serviceRefs,
  type Component,
  type RenderedChart,
} from './chart-env.js';
import { adminSocket, haproxy, serverStates, setServerState, waitForServers, type Backend, type Frontend } from './haproxy.js';
import { baseEnv, mongoWire, NATS_NODES, natsClusterReady, natsNode, S3, s3rver, type NatsNodePorts } from './infra.js';
import { ClusterProcess, type ProcessInfo, type ProcessSpec } from './process.js';
import { freePorts } from '@media/testkit';
import { replicaCounts } from './replicas.js';
import { missingBinaries } from './system.js';

const run = promisify(execFile);
/** The repository root: the images' /app, where each entrypoint's path starts. */
export const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));

export interface ClusterOptions {
  /** Replicas of the gateway and of each service (default 2); the console runs once. */
  replicas?: number;
  /** Replicas of named components instead of `replicas` (`{ jobs: 1 }`: a scaling baseline); replicas.ts. */
  replicasOf?: Partial<Record<Component, number>>;
  /** A MongoDB to use instead of the MongoDB-wire test server (default: MONGODB_URL, if set). */
  mongoUrl?: string;
  /** Progress lines (default: none). */
  log?: (line: string) => void;
  /**
   * Test and chaos knobs: variables set in every replica's environment over the chart's (e.g.
   * URL_ALLOWLIST_CIDRS and URL_CA_FILE for a loopback webhook receiver, a short JOB_TIMEOUT_SEC).
   * Not for deployments: the chart is the only source of a pod's environment.
   */
  env?: Record<string, string>;
  /** A process that exits without being stopped or killed through the handle (a crash). */
  onUnexpectedExit?: (name: string, how: string, log: string) => void;
}

export interface Cluster {
  /** The API through the balancer. */
  publicUrl: string;
  consoleUrl: string;
  /** haproxy's stats page (CSV: `<statsUrl>;csv`). */
  statsUrl: string;
  statsPort: number;
  /** What the admin CLI (tools/admin) needs: Auth's admin listener through the balancer, its token. */
  adminEnv: Record<string, string>;
  /** The admin CLI's command line, to paste in a shell at the repository root. */
  adminCommand: string;
  /** Runs the admin CLI with `args`; its one JSON line, parsed. */
  admin(...args: string[]): Promise<Record<string, unknown>>;
  /** Every process, infrastructure first, in start order. */
  processes: ClusterProcess[];
  list(): ProcessInfo[];
  get(name: string): ClusterProcess;
  /** Sends `signal` (default SIGKILL) to a process and waits for its exit (SIGSTOP/SIGCONT: pause, resume). */
  kill(name: string, signal?: NodeJS.Signals): Promise<void>;
  /** Starts a stopped or killed process again, and puts it back in the balancer if it was drained. */
  restart(name: string): Promise<void>;
  /**
   * Stops a process as Kubernetes terminates a pod: out of the balancer first (its Service's
   * endpoints), what is open to it finishes during the preStop sleep, then SIGTERM (it drains).
   */
  drain(name: string): Promise<void>;
  pause(name: string): void;
  resume(name: string): void;
  /** Waits until the balancer sees `server` (default: every server) UP or DOWN. */
  waitForBalancer(status: 'UP' | 'DOWN', server?: string, timeoutMs?: number): Promise<void>;
  /** Milliseconds startCluster took. */
  startMs: number;
  /** Stops every process (applications first, then the balancer, then the infrastructure) and removes the scratch folder. */
  stop(): Promise<void>;
}

const READY_MS = 60_000;
/** The chart's gateway.preStopSleepSec: how long a terminating pod keeps serving before its SIGTERM. */
const PRE_STOP_MS = 5000;

export async function startCluster(options: ClusterOptions = {}): Promise<Cluster> {
  const started = Date.now();
  const counts = replicaCounts(options.replicas ?? 2, options.replicasOf);
  const { missing, hint } = missingBinaries();
  if (missing.length) throw new Error(`npm run cluster needs ${missing.join(' and ')}: ${hint}`);
  const log = options.log ?? (() => {});
  const mongoUrl = options.mongoUrl ?? process.env.MONGODB_URL;
  const dir = mkdtempSync(join(tmpdir(), 'media-cluster-'));
  const processes: ClusterProcess[] = [];
  const launch = async (spec: ProcessSpec) => {
    const proc = new ClusterProcess(spec);
    proc.onUnexpectedExit = (p, how) => options.onUnexpectedExit?.(p.name, how, p.log());
    processes.push(proc);
    await proc.start();
    log(`${proc.name.padEnd(10)} pid ${String(proc.pid).padEnd(8)} ${describePorts(spec.ports)}`);
    return proc;
  };
  const stopAll = async () => {
    // Reverse start order, one layer at a time: nothing loses what it calls before it stops.
    const layers = [...new Set(processes.map((p) => p.kind))].reverse();
    for (const kind of layers) await Promise.all(processes.filter((p) => p.kind === kind).map((p) => p.stop()));
    rmSync(dir, { recursive: true, force: true });
  };

  try {
    // Infrastructure: every port chosen now, so a restart comes back on the same one.
    const [statsPort, apiPort, consolePort, signedPort, s3Port, mongoPort, ...natsPorts] = await freePorts(6 + 3 * NATS_NODES);
    const nats: NatsNodePorts[] = Array.from({ length: NATS_NODES }, (_, i) => ({
      client: natsPorts[3 * i]!,
      cluster: natsPorts[3 * i + 1]!,
      monitor: natsPorts[3 * i + 2]!,
    }));
    await Promise.all([
      ...nats.map((_, i) => launch(natsNode(i, nats, dir))),
      ...(mongoUrl ? [] : [launch(mongoWire(mongoPort!))]),
      launch(s3rver(s3Port!, join(dir, 's3'))),
    ]);
    await natsClusterReady(nats);
    log('nats: cluster of 3, JetStream meta leader elected');

    const publicUrl = `http://127.0.0.1:${apiPort}`;
    const consoleUrl = `http://127.0.0.1:${consolePort}`;
    const chart = await renderChart({
      mongoUrl: mongoUrl ?? `mongodb://127.0.0.1:${mongoPort}/?directConnection=true`,
      natsUrls: nats.map((n) => `nats://127.0.0.1:${n.client}`),
      s3: { ...S3, endpoint: `http://127.0.0.1:${s3Port}`, publicEndpoint: `http://127.0.0.1:${signedPort}` },
      publicUrl,
      consoleUrl,
    });

    // Every replica's ports, and a balancer frontend for every Service another component calls.
    const refs = serviceRefs(chart);
    const placements = await placeReplicas(chart, counts, refs);
    // Each replica on `portName`, checked as its pod's readinessProbe.
    const backends = (component: Component, portName: string): Backend[] => {
      const { portName: checked, ...check } = readiness(chart, component);
      return placements[component].map((r) => ({ name: r.name, port: r.ports[portName]!, check: { ...check, port: r.ports[checked]! } }));
    };
    const frontends: Frontend[] = [
      { name: 'api', mode: 'http', port: apiPort!, backends: backends('gateway', 'http') },
      { name: 'console', mode: 'http', port: consolePort!, backends: backends('console', 'http') },
      { name: 'signed-urls', mode: 'http', port: signedPort!, backends: [{ name: 's3', port: s3Port! }] },
      ...refs.map((ref): Frontend => {
        const [component, port] = ref.split(':') as [Component, string];
        const portName = componentRun(chart, component).ports.find((p) => p.containerPort === Number(port))!.name;
        return {
          name: `svc-${component}-${port}`,
          mode: 'tcp',
          port: placements.frontends[ref]!,
          backends: backends(component, portName),
        };
      }),
    ];
    await launch(haproxy(frontends, statsPort!, dir));

    for (const component of COMPONENTS)
      await Promise.all(
        placements[component].map((r) => {
          const env = {
            ...replicaEnv(chart, component, {
              ports: r.ports,
              dataDir: join(dir, r.name, 'data'),
              workDir: join(dir, r.name, 'work'),
              frontends: placements.frontends,
            }),
            ...options.env,
          };
          mkdirSync(env.DATA_DIR!, { recursive: true });
          if (env.WORK_DIR) mkdirSync(env.WORK_DIR, { recursive: true });
          return launch(componentSpec(chart, component, r.name, r.ports, env));
        }),
      );
    await waitForServers(statsPort!, 'UP', undefined, READY_MS);
    log(`haproxy: every server UP (stats ${`http://127.0.0.1:${statsPort}/stats`})`);

    const authEnv = processes.find((p) => p.kind === 'auth')!.spec.env;
    const adminEnv = {
      AUTH_ADMIN_URL: `http://127.0.0.1:${placements.frontends['auth:50061'] ?? ''}`,
      AUTH_ADMIN_TOKEN: authEnv.AUTH_ADMIN_TOKEN ?? '',
      CONSOLE_URL: consoleUrl,
    };
    const adminMain = join(REPO_ROOT, 'tools/admin/dist/admin.js');
    const get = (name: string) => {
      const proc = processes.find((p) => p.name === name);
      if (!proc) throw new Error(`no process named ${name} (${processes.map((p) => p.name).join(', ')})`);
      return proc;
    };
    return {
      publicUrl,
      consoleUrl,
      statsPort: statsPort!,
      statsUrl: `http://127.0.0.1:${statsPort}/stats`,
      adminEnv,
      adminCommand: `${Object.entries(adminEnv)
        .map(([k, v]) => `${k}=${v}`)
        .join(' ')} node tools/admin/dist/admin.js`,
      async admin(...args) {
        const { stdout } = await run(process.execPath, [adminMain, ...args], { env: { ...baseEnv(), ...adminEnv }, cwd: REPO_ROOT });
        return JSON.parse(stdout) as Record<string, unknown>;
      },
      processes,
      list: () => processes.map((p) => p.info()),
      get,
      kill: (name, signal) => get(name).kill(signal),
      async restart(name) {
        await get(name).restart();
        await setServerState(adminSocket(dir), statsPort!, name, 'ready');
      },
      async drain(name) {
        const proc = get(name);
        await setServerState(adminSocket(dir), statsPort!, name, 'drain');
        // The chart's preStop sleep (gateway.preStopSleepSec, 5 s) at most: SIGTERM once nothing
        // the balancer sent is still open on it.
        await waitFor(
          `${name}: no session open through the balancer`,
          async () => (await serverStates(statsPort!)).every((s) => s.server !== name || s.sessions === 0),
          PRE_STOP_MS,
        ).catch(() => undefined);
        await proc.kill('SIGTERM');
      },
      pause: (name) => get(name).pause(),
      resume: (name) => get(name).resume(),
      waitForBalancer: (status, server, timeoutMs) => waitForServers(statsPort!, status, server, timeoutMs),
      startMs: Date.now() - started,
      stop: stopAll,
    };
  } catch (err) {
    await stopAll();
    throw err;
  }
}

interface Replica {
  name: string;
  ports: Record<string, number>;
}
type Placements = Record<Component, Replica[]> & { frontends: Record<string, number> };

/** Free ports for every replica's named ports (and EXTRA_PORTS), and one per balancer frontend. */
async function placeReplicas(chart: RenderedChart, counts: Record<Component, number>, refs: string[]): Promise<Placements> {
  const names = (c: Component) => [...componentRun(chart, c).ports.map((p) => p.name), ...(EXTRA_PORTS[c] ?? [])];
  const total = refs.length + COMPONENTS.reduce((n, c) => n + counts[c] * names(c).length, 0);
  const ports = await freePorts(total);
  const next = () => ports.pop()!;
  const placements = { frontends: Object.fromEntries(refs.map((r) => [r, next()])) } as Placements;
  for (const c of COMPONENTS)
    placements[c] = Array.from({ length: counts[c] }, (_, i) => ({
      name: `${c}-${i + 1}`,
      ports: Object.fromEntries(names(c).map((n) => [n, next()])),
    }));
  return placements;
}

/** A replica as its pod runs it: the image's `node <main>` in /app (here the repository root), the chart's environment. */
function componentSpec(
  chart: RenderedChart,
  component: Component,
  name: string,
  ports: Record<string, number>,
  env: Record<string, string>,
): ProcessSpec {
  const { main, ports: podPorts } = componentRun(chart, component);
  const mainPort = ports[podPorts[0]!.name]!;
  return {
    name,
    kind: component,
    argv: [process.execPath, join(REPO_ROOT, main)],
    cwd: REPO_ROOT,
    // NODE_ENV: the image's ENV; the rest is the chart's.
    env: { ...baseEnv(), NODE_ENV: 'production', ...env },
    ports,
    async ready(exited) {
      await waitForPort(mainPort, READY_MS, name, exited);
      // The ops listener opens once the process's own listeners are up.
      if (ports.metrics) await waitForPort(ports.metrics, READY_MS, `${name} ops listener`, exited);
    },
    // The chart's grace (SHUTDOWN_GRACE_SEC 20, under Kubernetes' 30 s).
    stopGraceMs: 30_000,
  };
}

function describePorts(ports: Record<string, number>): string {
  return Object.entries(ports)
    .map(([role, port]) => `${role} ${port}`)
    .join(', ');
}
