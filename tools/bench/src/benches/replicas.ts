// `npm run bench -- --cluster`: the replica benchmarks on npm run cluster's topology (tools/cluster,
// 2 replicas of every process, as the chart runs them), started once from this process. Not in the
// default run: they take about ten minutes and need nats-server and haproxy.
import { onCluster } from '../lib/cluster.js';
import { pacedClip } from '../lib/fixtures.js';
import type { Context, Row } from '../lib/report.js';
import { gatewayReplicas } from './gateway-replicas.js';
import { jobsReplicas, PACED_SEC } from './jobs-replicas.js';

export const REPLICA_BENCHES = ['jobs-replicas', 'gateway-replicas'] as const;

export async function replicaBenches(ctx: Context, only: Set<string>): Promise<Row[]> {
  const clip = await pacedClip(ctx.workDir, PACED_SEC);
  return onCluster(ctx, { replicas: 2 }, async (cluster) => {
    const rows: Row[] = [];
    if (only.has('jobs-replicas')) {
      process.stderr.write('jobs-replicas...\n');
      rows.push(await jobsReplicas(ctx, cluster, clip));
    }
    if (only.has('gateway-replicas')) {
      process.stderr.write('gateway-replicas...\n');
      rows.push(await gatewayReplicas(ctx, cluster, clip));
    }
    return rows;
  });
}
