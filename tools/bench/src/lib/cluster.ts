// The replica benchmarks' cluster: npm run cluster's topology (tools/cluster) started from this
// process, accounts and keys made through Auth's admin API behind the balancer, replicas taken out
// and put back as a scale-down and scale-up would, and the CPU every process used over a span
// (/proc), so each figure says where the machine's cores went.
import { readFile } from 'node:fs/promises';
import { AccountStatus, AuthAdminService } from '@media/proto/media/auth/v1/auth_pb.js';
import { adminClientInterceptors, createServiceClient } from '@media/platform';
import { startCluster, type Cluster, type ClusterOptions } from '@media/tool-cluster';
import { cpuTimes, treeCpuTimes } from './proc-cpu.js';
import type { Context } from './report.js';

/**
 * Starts a cluster, runs `body` on it and stops it, also on Ctrl-C (its processes run in process
 * groups of their own). A figure taken while a process crashed is not the topology's: a crash
 * fails the run. On a failure haproxy's last lines are logged (its view of the servers: UP, DOWN
 * and why).
 */
export async function onCluster<T>(ctx: Context, options: ClusterOptions, body: (cluster: Cluster) => Promise<T>): Promise<T> {
  const crashes: string[] = [];
  const cluster = await startCluster({
    ...options,
    onUnexpectedExit: (name, how, log) => crashes.push(`${name} (${how}): ${log.split('\n').slice(-10).join('\n')}`),
  });
  ctx.log(`cluster: ${cluster.processes.length} processes up in ${(cluster.startMs / 1000).toFixed(1)} s`);
  const interrupted = (signal: NodeJS.Signals) => {
    process.stderr.write(`${signal}: stopping the cluster\n`);
    void cluster.stop().finally(() => process.exit(130));
  };
  process.once('SIGINT', interrupted);
  process.once('SIGTERM', interrupted);
  let result: T;
  try {
    result = await body(cluster);
  } catch (err) {
    ctx.log(`haproxy's last lines:\n${cluster.get('haproxy').log().split('\n').slice(-30).join('\n')}`);
    throw err;
  } finally {
    process.off('SIGINT', interrupted);
    process.off('SIGTERM', interrupted);
    await cluster.stop();
  }
  if (crashes.length) throw new Error(`cluster processes exited unexpectedly:\n${crashes.join('\n')}`);
  return result;
}

/** A new active account with `keys` API keys, through the balancer's frontend of Auth's admin listener. */
export async function clusterAccount(cluster: Cluster, keys: number): Promise<{ accountId: string; authorizations: string[] }> {
  const { client: admin, close } = createServiceClient(AuthAdminService, cluster.adminEnv.AUTH_ADMIN_URL!, {
    breaker: false,
    interceptors: adminClientInterceptors(cluster.adminEnv.AUTH_ADMIN_TOKEN || undefined),
  });
  try {
    const { account } = await admin.createAccount({ status: AccountStatus.ACTIVE });
    const accountId = account!.accountId;
    const authorizations: string[] = [];
    // Twenty at a time: thousands of keys in seconds, without a burst Auth would queue.
    for (let i = 0; i < keys; i += 20) {
      const batch = Array.from({ length: Math.min(20, keys - i) }, (_, j) => admin.createKey({ accountId, name: `bench-${i + j}` }));
      authorizations.push(...(await Promise.all(batch)).map((k) => k.authorization));
    }
    return { accountId, authorizations };
  } finally {
    close();
  }
}

/** Stops replica `name` (SIGTERM, as a scale-down) and waits until the balancer has taken it out. */
export async function takeOut(cluster: Cluster, name: string): Promise<void> {
  await cluster.get(name).stop();
  await cluster.waitForBalancer('DOWN', name, 30_000);
}

/** Starts replica `name` again on its ports and data, and waits until the balancer sends to it. */
export async function putBack(cluster: Cluster, name: string): Promise<void> {
  if (!cluster.get(name).running) await cluster.restart(name);
  await cluster.waitForBalancer('UP', name, 60_000);
}

export interface CpuSnapshot {
  at: number;
  /** Own CPU ms of each running process by name (with its children's: ffmpeg under Jobs), and `bench` (this process). */
  byName: Map<string, number>;
  /** The machine's busy and total CPU ms (/proc/stat, all cores). */
  busyMs: number;
  totalMs: number;
}

export async function cpuSnapshot(cluster: Cluster): Promise<CpuSnapshot> {
  const byName = new Map<string, number>();
  for (const p of cluster.list()) {
    if (!p.pid) continue;
    const t = await treeCpuTimes(p.pid);
    if (t) byName.set(p.name, t.selfMs + t.childrenMs);
  }
  const self = await cpuTimes();
  if (self) byName.set('bench', self.selfMs);
  // cpu  user nice system idle iowait irq softirq steal ...: USER_HZ ticks, 100 a second.
  const fields = (await readFile('/proc/stat', 'utf8').catch(() => 'cpu 0 0 0 0')).split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  const idle = (fields[3] ?? 0) + (fields[4] ?? 0);
  const total = fields.slice(0, 8).reduce((a, b) => a + b, 0);
  return { at: Date.now(), byName, busyMs: (total - idle) * 10, totalMs: total * 10 };
}

/**
 * CPU over the span between two snapshots as percent of one core: the busiest processes, then the
 * machine (of cores x 100 %).
 */
export function cpuSpan(a: CpuSnapshot, b: CpuSnapshot, top = 6): { text: string; percentOf: (name: string) => number } {
  const span = b.at - a.at;
  const pct = new Map<string, number>();
  for (const [name, ms] of b.byName) {
    const before = a.byName.get(name);
    if (before !== undefined) pct.set(name, ((ms - before) / span) * 100);
  }
  const busiest = [...pct].sort((x, y) => y[1] - x[1]).slice(0, top);
  const cores = Math.round((b.totalMs - a.totalMs) / span);
  const machine = ((b.busyMs - a.busyMs) / (b.totalMs - a.totalMs)) * 100 * cores;
  // What the machine spent beyond this process and the cluster's: other work sharing the cores.
  const others = machine - [...pct.values()].reduce((x, y) => x + y, 0);
  return {
    text: `${busiest.map(([n, p]) => `${n} ${p.toFixed(0)}%`).join(', ')}; machine ${machine.toFixed(0)}% of ${cores * 100}% (other processes ${Math.max(0, others).toFixed(0)}%)`,
    percentOf: (name) => pct.get(name) ?? 0,
  };
}

/**
 * `rounds` rounds of the 1-replica and the 2-replica side back to back, who goes first
 * alternating, so a drift in the machine's other load falls on both sides; `afterRound` runs once
 * each round, after both sides.
 */
export async function alternatingSides<T>(
  rounds: number,
  side: (replicas: 1 | 2) => Promise<T>,
  afterRound?: () => Promise<void>,
): Promise<{ ones: T[]; twos: T[] }> {
  const ones: T[] = [];
  const twos: T[] = [];
  for (let r = 0; r < rounds; r++) {
    if (r % 2 === 0) {
      ones.push(await side(1));
      twos.push(await side(2));
    } else {
      twos.push(await side(2));
      ones.push(await side(1));
    }
    await afterRound?.();
  }
  return { ones, twos };
}
