// npm run cluster [-- --replicas N] [--replicas-of jobs=1,gateway=2]: starts the topology
// (cluster.ts), prints where everything is, and runs until Ctrl-C (SIGINT) or SIGTERM, which stop
// every process it started.
import { parseArgs } from 'node:util';
import { startCluster } from './cluster.js';
import { parseReplicasOf } from './replicas.js';

const { values } = parseArgs({ options: { replicas: { type: 'string', default: '2' }, 'replicas-of': { type: 'string', default: '' } } });
const replicas = Number(values.replicas);

let stopping = false;
try {
  const replicasOf = parseReplicasOf(values['replicas-of']);
  const cluster = await startCluster({
    replicas,
    replicasOf,
    log: (line) => console.log(line),
    onUnexpectedExit: (name, how, log) => {
      if (!stopping) console.error(`${name} exited unexpectedly (${how}); its last lines:\n${log.split('\n').slice(-10).join('\n')}`);
    },
  });
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`\n${signal}: stopping ${cluster.processes.length} processes`);
    await cluster.stop();
    console.log('stopped');
    process.exit(0);
  };
  const overrides = Object.entries(replicasOf)
    .map(([c, n]) => `; ${c} ${n}`)
    .join('');
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
  console.log(`
Cluster up in ${(cluster.startMs / 1000).toFixed(1)} s: ${cluster.processes.length} processes (${replicas} ${replicas === 1 ? 'replica' : 'replicas'} of each service and of the gateway${overrides})
  API (haproxy):   ${cluster.publicUrl}
  console:         ${cluster.consoleUrl}
  haproxy stats:   ${cluster.statsUrl}
  admin CLI:       ${cluster.adminCommand} account create
Processes:
${cluster
  .list()
  .map(
    (p) =>
      `  ${p.name.padEnd(10)} pid ${String(p.pid).padEnd(8)} ${Object.entries(p.ports)
        .map(([k, v]) => `${k} ${v}`)
        .join(', ')}`,
  )
  .join('\n')}
Ctrl-C stops everything.`);
} catch (err) {
  console.error(`npm run cluster: ${(err as Error).message}`);
  process.exit(1);
}
