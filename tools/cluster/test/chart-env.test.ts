// A replica's environment is the chart's, rewritten only for one machine; when the chart drops or
// adds a variable the rewrite relies on, the cluster refuses to start and names it.
import { cleanupHelm } from '@media/deploy/helm';
import {
  COMPONENTS,
  componentRun,
  EXTRA_PORTS,
  readiness,
  renderChart,
  replicaEnv,
  serviceRefs,
  type RenderedChart,
} from '../src/chart-env.js';

let chart: RenderedChart;
beforeAll(async () => {
  chart = await renderChart({
    mongoUrl: 'mongodb://127.0.0.1:27017/?directConnection=true',
    natsUrls: ['nats://127.0.0.1:4222', 'nats://127.0.0.1:4223', 'nats://127.0.0.1:4224'],
    s3: {
      endpoint: 'http://127.0.0.1:9000',
      publicEndpoint: 'http://127.0.0.1:9001',
      bucket: 'media',
      region: 'us-east-1',
      accessKeyId: 'S3RVER',
      secretAccessKey: 'S3RVER',
    },
    publicUrl: 'http://127.0.0.1:8000',
    consoleUrl: 'http://127.0.0.1:8001',
  });
}, 30_000);
afterAll(cleanupHelm);

const refs = () => serviceRefs(chart);
const frontends = () => Object.fromEntries(refs().map((r, i) => [r, 40_000 + i]));
/** Ports 30000 + n for every named port, in order. */
function placement(component: (typeof COMPONENTS)[number]) {
  const names = [...componentRun(chart, component).ports.map((p) => p.name), ...(EXTRA_PORTS[component] ?? [])];
  return {
    ports: Object.fromEntries(names.map((n, i) => [n, 30_000 + i])),
    dataDir: '/tmp/x/data',
    workDir: '/tmp/x/work',
    frontends: frontends(),
  };
}

test('the Services other components call: each service gRPC port and Auth admin listener', () => {
  expect(refs()).toEqual(['auth:50051', 'auth:50061', 'billing:50055', 'jobs:50053', 'probe:50054', 'storage:50052']);
});

test("each replica's ports, Service addresses and folders are rewritten; nothing else of the chart's", () => {
  const gateway = replicaEnv(chart, 'gateway', placement('gateway'));
  expect(gateway).toMatchObject({
    PORT: '30000',
    METRICS_PORT: '30001',
    DOCS_PORT: '30002',
    HOST: '127.0.0.1',
    JOBS_URL: `http://127.0.0.1:${frontends()['jobs:50053']}`,
    DATA_DIR: '/tmp/x/data',
    NATS_STREAM_REPLICAS: '3',
    NATS_URL: 'nats://127.0.0.1:4222,nats://127.0.0.1:4223,nats://127.0.0.1:4224',
  });
  const auth = replicaEnv(chart, 'auth', placement('auth'));
  // Auth calls its own admin listener (the admin CLI in its pod): its own port, not the balancer's.
  expect(auth.AUTH_ADMIN_URL).toBe(`http://127.0.0.1:${auth.AUTH_ADMIN_PORT}`);
  expect(replicaEnv(chart, 'jobs', placement('jobs')).WORK_DIR).toBe('/tmp/x/work');
  expect(replicaEnv(chart, 'storage', placement('storage'))).toMatchObject({ STORAGE_HTTP_PORT: '30002', STORAGE_HTTP_HOST: '127.0.0.1' });
  for (const component of COMPONENTS)
    expect(Object.values(replicaEnv(chart, component, placement(component))).join(' ')).not.toMatch(/media-media-service|0\.0\.0\.0/);
});

test("streams on every NATS node: the chart's nats.streamReplicas, rendered for each process on the bus", () => {
  for (const component of COMPONENTS) {
    const env = replicaEnv(chart, component, placement(component));
    // The console does not use NATS; every other process creates or updates the streams at its start.
    expect([component, env.NATS_STREAM_REPLICAS]).toEqual([component, component === 'console' ? undefined : '3']);
  }
});

test("the balancer checks each replica as its pod's readinessProbe: gRPC health on a service's port, /readyz for the others", () => {
  const services = COMPONENTS.filter((c) => c !== 'gateway' && c !== 'console');
  for (const c of services) expect([c, readiness(chart, c)]).toEqual([c, { kind: 'grpc', portName: 'grpc', service: '' }]);
  for (const c of ['gateway', 'console'] as const)
    expect([c, readiness(chart, c)]).toEqual([c, { kind: 'http', portName: 'metrics', path: '/readyz' }]);
});

test('a chart that drops a rewritten variable, or sets an added one, stops the start naming it', () => {
  const configMap = chart.docs.find((d) => d.kind === 'ConfigMap' && d.data?.DATA_DIR)!;
  const saved = { ...configMap.data };
  try {
    delete configMap.data.DATA_DIR;
    expect(() => replicaEnv(chart, 'billing', placement('billing'))).toThrow("the chart's billing environment no longer sets DATA_DIR");
    configMap.data = { ...saved, STORAGE_HTTP_PORT: '8081' };
    expect(() => replicaEnv(chart, 'storage', placement('storage'))).toThrow("the chart's storage environment now sets STORAGE_HTTP_PORT");
  } finally {
    configMap.data = saved;
  }
});
