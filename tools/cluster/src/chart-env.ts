// Each process's environment is the one the Helm chart gives its pod (rendered with the helm
// binary, ConfigMap + Secret + env, as the kubelet sets it), with only what one machine forces
// rewritten: the pod's ports (every pod has its own network; here they share loopback), Service
// names (to the balancer's frontends), and the pod's scratch folders. Every rewrite names a
// variable the chart must set: a chart that drops or renames one fails here, not silently.
import { cleanupHelm, render, type Doc } from '@media/deploy/helm';
import { container, containerEnv, decodedSecrets, FULLNAME } from '@media/deploy/pod-env';

/** The chart's components in start order: what each one calls is up before it. */
export const COMPONENTS = ['auth', 'billing', 'storage', 'probe', 'jobs', 'gateway', 'console'] as const;
export type Component = (typeof COMPONENTS)[number];

export interface ChartInputs {
  mongoUrl: string;
  natsUrls: string[];
  s3: { endpoint: string; publicEndpoint: string; bucket: string; region: string; accessKeyId: string; secretAccessKey: string };
  /** The balancer's public URL (the console shows it beside new keys). */
  publicUrl: string;
  consoleUrl: string;
}

export interface RenderedChart {
  docs: Doc[];
  secrets: Record<string, Record<string, string>>;
}

// helm's --set splits on unescaped commas.
const setValue = (path: string, value: string) => `${path}=${value.replaceAll('\\', '\\\\').replaceAll(',', '\\,')}`;

/** `helm template` with the chart's defaults, this machine's addresses, and streams on every NATS node. */
export async function renderChart(inputs: ChartInputs): Promise<RenderedChart> {
  const docs = await render(
    [],
    [
      setValue('mongodb.url', inputs.mongoUrl),
      setValue('nats.url', inputs.natsUrls.join(',')),
      // Every stream and consumer on each node: one node lost loses nothing (docs/operations/faults.md).
      `nats.streamReplicas=${inputs.natsUrls.length}`,
      setValue('s3.bucket', inputs.s3.bucket),
      setValue('s3.endpoint', inputs.s3.endpoint),
      setValue('s3.publicEndpoint', inputs.s3.publicEndpoint),
      setValue('s3.region', inputs.s3.region),
      's3.forcePathStyle=true',
      setValue('s3.accessKeyId', inputs.s3.accessKeyId),
      setValue('s3.secretAccessKey', inputs.s3.secretAccessKey),
      setValue('console.apiUrl', inputs.publicUrl),
      setValue('config.consoleUrl', inputs.consoleUrl),
    ],
  ).finally(cleanupHelm); // helm's temporary home: rendered once per start
  return { docs, secrets: decodedSecrets(docs) };
}

export interface ContainerPort {
  name: string;
  containerPort: number;
}

/** What the chart runs for a component: its entrypoint (the image runs `node <main>`) and its ports. */
export function componentRun(chart: RenderedChart, component: Component): { main: string; ports: ContainerPort[] } {
  const ctr = container(chart.docs, component);
  return {
    main: String(ctr.args[0]),
    ports: (ctr.ports as ContainerPort[]).map((p) => ({ name: p.name, containerPort: p.containerPort })),
  };
}

/**
 * How Kubernetes decides a pod is ready, and so whether a Service sends it traffic: the pod's
 * readinessProbe, on one of its named ports. The services' probe is grpc.health.v1 on their gRPC
 * port (the overall status: a database ping included); the gateway's and the console's, GET
 * /readyz on the ops listener; without the ops listener, a TCP connect.
 */
export type Readiness =
  | { kind: 'grpc'; portName: string; service: string }
  | { kind: 'http'; portName: string; path: string }
  | { kind: 'tcp'; portName: string };

/** The component's readinessProbe, as the balancer checks each replica. */
export function readiness(chart: RenderedChart, component: Component): Readiness {
  const ctr = container(chart.docs, component);
  type Port = string | number;
  const probe = ctr.readinessProbe as
    | { grpc?: { port: Port; service?: string }; httpGet?: { port: Port; path: string }; tcpSocket?: { port: Port } }
    | undefined;
  const { ports } = componentRun(chart, component);
  // A probe names its port by name or by number.
  const portName = (port: Port) => {
    const named = ports.find((p) => p.name === port || p.containerPort === port);
    if (!named) throw new Error(`the chart's ${component} readinessProbe uses port ${port}, which its pod does not declare`);
    return named.name;
  };
  if (probe?.grpc) return { kind: 'grpc', portName: portName(probe.grpc.port), service: probe.grpc.service ?? '' };
  if (probe?.httpGet) return { kind: 'http', portName: portName(probe.httpGet.port), path: probe.httpGet.path };
  if (probe?.tcpSocket) return { kind: 'tcp', portName: portName(probe.tcpSocket.port) };
  throw new Error(
    `the chart's ${component} pod has no readinessProbe the balancer can follow: tools/cluster/src/chart-env.ts must follow it`,
  );
}

/** Ports a process listens on beyond its pod's (the chart leaves them at their defaults). */
export const EXTRA_PORTS: Partial<Record<Component, string[]>> = { storage: ['storage-http'] };

/** A Kubernetes Service address in the rendered environment: http://<release>-<component>:<port>. */
const SERVICE_URL = new RegExp(`^http://${FULLNAME}-([a-z]+):(\\d+)$`);

/** Every Service address some component's environment names, as `component:port` (the balancer's frontends). */
export function serviceRefs(chart: RenderedChart): string[] {
  const refs = new Set<string>();
  for (const component of COMPONENTS)
    for (const value of Object.values(containerEnv(chart.docs, component, chart.secrets))) {
      const m = SERVICE_URL.exec(value);
      if (m) refs.add(`${m[1]}:${m[2]}`);
    }
  return [...refs].sort();
}

export interface Placement {
  /** This replica's port for each of its pod's named ports (`grpc`/`http`, `metrics`, `docs`, `admin`) and EXTRA_PORTS. */
  ports: Record<string, number>;
  dataDir: string;
  workDir: string;
  /** The balancer's frontend port for each Service address (`auth:50051`). */
  frontends: Record<string, number>;
}

const LISTEN_HOSTS = /^(HOST|SERVICE_HOST|METRICS_HOST|DOCS_HOST|CONSOLE_HOST|AUTH_ADMIN_HOST)$/;

/** The environment of one replica of `component`: the chart's, rewritten for this machine. */
export function replicaEnv(chart: RenderedChart, component: Component, at: Placement): Record<string, string> {
  const env = containerEnv(chart.docs, component, chart.secrets);
  const { ports } = componentRun(chart, component);
  const drift = (what: string) => new Error(`the chart's ${component} environment ${what}: tools/cluster/src/chart-env.ts must follow it`);
  const own = new Map(ports.map((p) => [p.containerPort, at.ports[p.name]]));
  for (const [name, value] of Object.entries(env)) {
    const service = SERVICE_URL.exec(value);
    if (service) {
      const frontend = at.frontends[`${service[1]}:${service[2]}`];
      if (frontend === undefined) throw drift(`names ${value} (${name}), which the balancer does not serve`);
      env[name] = `http://127.0.0.1:${frontend}`;
    } else if (/PORT$/.test(name) && own.has(Number(value))) {
      env[name] = String(own.get(Number(value)));
    } else if (/^http:\/\/127\.0\.0\.1:(\d+)$/.test(value) && own.has(Number(value.split(':')[2]))) {
      env[name] = `http://127.0.0.1:${own.get(Number(value.split(':')[2]))}`; // a pod calling itself (Auth's admin URL)
    } else if (LISTEN_HOSTS.test(name) && value !== '127.0.0.1') {
      // A pod listens on every address of its own network (config.listenAddress); here, loopback only.
      if (value !== '0.0.0.0') throw drift(`listens on ${value} (${name})`);
      env[name] = '127.0.0.1';
    } else if (value.includes(FULLNAME)) {
      throw drift(`names ${value} (${name}), an address that means nothing here`);
    }
  }
  const replace = (name: string, value: string) => {
    if (env[name] === undefined) throw drift(`no longer sets ${name}`);
    env[name] = value;
  };
  const add = (name: string, value: string) => {
    if (env[name] !== undefined) throw drift(`now sets ${name} (${env[name]})`);
    env[name] = value;
  };
  // The pod's emptyDirs: a folder per replica (INSTANCE_ID defaults to the host name with DATA_DIR).
  replace('DATA_DIR', at.dataDir);
  if (env.WORK_DIR !== undefined) replace('WORK_DIR', at.workDir);
  if (component === 'storage') {
    // The local-disk signed-URL listener, unused on S3 but opened: one port each.
    add('STORAGE_HTTP_PORT', String(at.ports['storage-http']));
    add('STORAGE_HTTP_HOST', '127.0.0.1');
  }
  return env;
}
