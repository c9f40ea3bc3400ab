// Pods start in any order: a service whose NATS cluster has one node of three up (no JetStream
// leader yet, too few peers for its R3 stream) waits for the others instead of failing its start
// ("Cannot use NATS ...: timeout", seen in CI under load while the cluster elected its leader).
import { connectEventBus, type EventBus } from '@media/eventbus';
import { findBinary, freePorts, tempDir, underCI, waitFor } from '@media/testkit';
import { NATS_NODES, natsNode, type NatsNodePorts } from '../src/infra.js';
import { ClusterProcess } from '../src/process.js';

const skip = findBinary('nats-server') === undefined && !underCI;
if (skip) console.warn('tools/cluster: NATS start-order test skipped, nats-server missing (apt-get install -y nats-server)');
const maybe = skip ? test.skip : test;

maybe(
  'a bus started on one node of three is up once the other two join, its R3 stream made',
  async () => {
    const dir = await tempDir('nats-order-');
    const ports = await freePorts(NATS_NODES * 3);
    const all: NatsNodePorts[] = [0, 1, 2].map((i) => ({ client: ports[i * 3]!, cluster: ports[i * 3 + 1]!, monitor: ports[i * 3 + 2]! }));
    const nodes = all.map((_, i) => new ClusterProcess(natsNode(i, all, dir.path)));
    let bus: EventBus | undefined;
    try {
      await nodes[0]!.start();
      let failed: Error | undefined;
      const starting = connectEventBus({ natsUrl: `nats://127.0.0.1:${all[0]!.client}`, streamReplicas: 3 });
      starting.catch((err: Error) => (failed = err));
      // Its requests to the JetStream API, as node 1 counts them: a second one means the first got
      // no answer (no leader) and the start asked again rather than failing.
      const sent = async () => {
        const connz = (await (await fetch(`http://127.0.0.1:${all[0]!.monitor}/connz`)).json()) as { connections?: { in_msgs: number }[] };
        return Math.max(0, ...(connz.connections ?? []).map((c) => c.in_msgs));
      };
      await waitFor(
        'a second JetStream API request from the starting bus',
        async () => (await sent()) >= 2 || failed !== undefined,
        30_000,
      );
      expect(failed).toBeUndefined();
      await Promise.all([nodes[1]!.start(), nodes[2]!.start()]);
      bus = await starting;
      const got: string[] = [];
      const sub = await bus.subscribe('media.order.test', async (m) => {
        got.push(new TextDecoder().decode(m.data));
      });
      await bus.publish('media.order.test', new TextEncoder().encode('hello'));
      await waitFor('the event delivered', () => got.length > 0, 20_000);
      expect(got).toEqual(['hello']);
      await sub.stop();
    } finally {
      await bus?.close();
      await Promise.all(nodes.map((n) => n.stop().catch(() => undefined)));
      await dir.remove();
    }
  },
  120_000,
);
