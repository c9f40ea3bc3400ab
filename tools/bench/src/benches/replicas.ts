// `npm run bench -- --cluster`: the replica benchmarks on npm run cluster's topology (tools/cluster,
// 2 replicas of every process, as the chart runs them), started once from this process. Not in the
// default run: they take about ten minutes and need nats-server and haproxy.
import { startCluster } from '@media/tool-cluster';
import { pacedClip } from '../lib/fixtures.js';
import type { Context, Row } from '../lib/report.js';
import { gatewayReplicas } from './gateway-replicas.js';
import { jobsReplicas, PACED_SEC } from './jobs-replicas.js';

export const REPLICA_BENCHES = ['jobs-replicas', 'gateway-replicas'] as const;

export async function replicaBenches(ctx: Context, only: Set<string>): Promise<Row[]> {
  const clip = await pacedClip(ctx.workDir, PACED_SEC);
  const crashes: string[] = [];
  const cluster = await startCluster({
    replicas: 2,
    onUnexpectedExit: (name, how, log) => crashes.push(`${name} (${how}): ${log.split('\n').slice(-10).join('\n')}`),
  });
  ctx.log(`cluster: ${cluster.processes.length} processes up in ${(cluster.startMs / 1000).toFixed(1)} s`);
  // Ctrl-C stops the cluster too: its processes run in process groups of their own.
  const interrupted = (signal: NodeJS.Signals) => {
    process.stderr.write(`${signal}: stopping the cluster\n`);
    void cluster.stop().finally(() => process.exit(130));
  };
  process.once('SIGINT', interrupted);
  process.once('SIGTERM', interrupted);
  const rows: Row[] = [];
  try {
    if (only.has('jobs-replicas')) {
      process.stderr.write('jobs-replicas...\n');
      rows.push(await jobsReplicas(ctx, cluster, clip));
    }
    if (only.has('gateway-replicas')) {
      process.stderr.write('gateway-replicas...\n');
      rows.push(await gatewayReplicas(ctx, cluster, clip));
    }
  } catch (err) {
    // The balancer's view of its servers (UP, DOWN and why) says much about a failed figure.
    ctx.log(`haproxy's last lines:\n${cluster.get('haproxy').log().split('\n').slice(-30).join('\n')}`);
    throw err;
  } finally {
    process.off('SIGINT', interrupted);
    process.off('SIGTERM', interrupted);
    await cluster.stop();
  }
  // A figure taken while a process crashed is not the topology's.
  if (crashes.length) throw new Error(`cluster processes exited unexpectedly:\n${crashes.join('\n')}`);
  return rows;
}
