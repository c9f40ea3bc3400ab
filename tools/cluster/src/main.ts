// npm run cluster [-- --replicas N]: starts the topology (cluster.ts), prints where everything is,
// and runs until Ctrl-C (SIGINT) or SIGTERM, which stop every process it started.
import { parseArgs } from 'node:util';
import { startCluster } from './cluster.js';

const { values } = parseArgs({ options: { replicas: { type: 'string', default: '2' } } });
const replicas = Number(values.replicas);

let stopping = false;
try {
  const cluster = await startCluster({
    replicas,
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
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
  console.log(`
Cluster up in ${(cluster.startMs / 1000).toFixed(1)} s: ${cluster.processes.length} processes (${replicas} ${replicas === 1 ? 'replica' : 'replicas'} of each service and of the gateway)
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
