// The chart renders offline (helm lint + helm template), every manifest validates against the
// Kubernetes schemas (kubernetes-models), and the key fields are what the services need: those
// schemas accept unknown fields and most omissions, so the checks that matter are spelled out.
import { createHash } from 'node:crypto';
import { byName, ciValues, cleanupHelm, helm, ofKind, render, chartDir, type Doc } from '../src/helm.js';
import { validateManifest } from './k8s.js';

const FULLNAME = 'media-media-service'; // release "media" + chart name
const COMPONENTS = {
  gateway: { port: 8080, portName: 'http', ffmpeg: false, database: false },
  auth: { port: 50051, portName: 'grpc', ffmpeg: false, database: true },
  storage: { port: 50052, portName: 'grpc', ffmpeg: false, database: true },
  jobs: { port: 50053, portName: 'grpc', ffmpeg: true, database: true },
  probe: { port: 50054, portName: 'grpc', ffmpeg: true, database: true },
  billing: { port: 50055, portName: 'grpc', ffmpeg: false, database: true },
  console: { port: 8083, portName: 'http', ffmpeg: false, database: false },
} as const;
/** The components whose Service has a port of its own choosing (80 by default), and an Ingress. */
const WEB = new Set<string>(['gateway', 'console']);
const MAIN: Record<Component, string> = {
  gateway: 'gateway/dist/main.js',
  auth: 'services/auth/dist/main.js',
  storage: 'services/storage/dist/main.js',
  jobs: 'services/jobs/dist/main.js',
  probe: 'services/probe/dist/main.js',
  billing: 'services/billing/dist/main.js',
  console: 'console/dist/main.js',
};
type Component = keyof typeof COMPONENTS;
const NAMES = Object.keys(COMPONENTS) as Component[];

let minimal: Doc[];
let full: Doc[];

beforeAll(async () => {
  [minimal, full] = await Promise.all([render([ciValues('minimal-values.yaml')]), render([ciValues('full-values.yaml')])]);
});
afterAll(cleanupHelm);

const deployment = (docs: Doc[], c: Component) => byName(docs, 'Deployment', `${FULLNAME}-${c}`);
const container = (docs: Doc[], c: Component) => deployment(docs, c).spec.template.spec.containers[0];

test.each(['minimal-values.yaml', 'full-values.yaml'])('helm lint --strict passes with ci/%s', async (file) => {
  const out = await helm(['lint', chartDir, '--strict', '--values', ciValues(file)]);
  expect(out.stderr).toBe('');
  expect(out.stdout).toContain('0 chart(s) failed');
  expect(out.code).toBe(0);
});

test('every rendered manifest validates with kubernetes-models', () => {
  // The Prometheus Operator's kinds have no kubernetes-models class: checked in their own test.
  const crds = new Set(['ServiceMonitor', 'PrometheusRule']);
  for (const doc of [...minimal, ...full].filter((d) => !crds.has(d.kind))) expect(() => validateManifest(doc)).not.toThrow();
  const kinds = (docs: Doc[]) => docs.map((d) => d.kind).sort();
  expect(kinds(minimal)).toEqual(
    [
      'ConfigMap',
      'HorizontalPodAutoscaler',
      'Secret',
      // The internal calls' credentials (internal-secret.yaml).
      'Secret',
      'ServiceAccount',
      ...Array(7).fill('Deployment'),
      ...Array(7).fill('Service'),
      // Every component runs 2 pods by default (jobs: the HPA's minimum).
      ...Array(7).fill('PodDisruptionBudget'),
    ].sort(),
  );
  // existingSecrets: no Secret; autoscaling off: no HPA; both Ingresses and the NetworkPolicy on.
  expect(kinds(full)).toEqual(
    [
      'ConfigMap',
      'Ingress',
      'Ingress',
      'NetworkPolicy',
      'ServiceAccount',
      'ServiceMonitor',
      'PrometheusRule',
      ...Array(7).fill('Deployment'),
      ...Array(7).fill('Service'),
      ...Array(7).fill('PodDisruptionBudget'),
    ].sort(),
  );
});

test('a broken manifest is caught by the validator (the check is not vacuous)', () => {
  const bad = structuredClone(deployment(minimal, 'auth'));
  bad.spec.template.spec.containers[0].ports[0].containerPort = 'fifty';
  expect(() => validateManifest(bad)).toThrow();
});

test.each(NAMES)('%s: non-root, locked-down pod and container', (c) => {
  for (const docs of [minimal, full]) {
    const pod = deployment(docs, c).spec.template.spec;
    expect(pod.securityContext).toMatchObject({
      runAsNonRoot: true,
      runAsUser: 10001,
      runAsGroup: 10001,
      seccompProfile: { type: 'RuntimeDefault' },
    });
    expect(pod.automountServiceAccountToken).toBe(false);
    expect(pod.enableServiceLinks).toBe(false);
    expect(pod.containers).toHaveLength(1);
    const sc = pod.containers[0].securityContext;
    expect(sc).toMatchObject({
      runAsNonRoot: true,
      runAsUser: 10001,
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      privileged: false,
      seccompProfile: { type: 'RuntimeDefault' },
    });
    expect(sc.capabilities.drop).toEqual(['ALL']);
    expect(sc.capabilities.add).toBeUndefined();
    // Read-only root: the writable places are emptyDirs (full-values adds a read-only CA mount to jobs).
    const writable = pod.containers[0].volumeMounts.filter((m: { readOnly?: boolean }) => !m.readOnly);
    const mounts = Object.fromEntries(writable.map((m: { name: string; mountPath: string }) => [m.mountPath, m.name]));
    const volumes = Object.fromEntries(pod.volumes.map((v: { name: string; emptyDir?: object }) => [v.name, v]));
    expect(Object.keys(mounts).sort()).toEqual(COMPONENTS[c].ffmpeg ? ['/tmp', '/work'] : ['/tmp']);
    for (const name of Object.values(mounts)) expect(volumes[name].emptyDir).toBeDefined();
  }
});

test.each(NAMES)('%s: resources have requests and limits', (c) => {
  const { resources } = container(minimal, c);
  for (const part of ['requests', 'limits']) {
    expect(resources[part].cpu).toBeDefined();
    expect(resources[part].memory).toBeDefined();
  }
});

test.each(NAMES)('%s: container port, image and probes', (c) => {
  const meta = COMPONENTS[c];
  const ctr = container(minimal, c);
  // Every pod serves metrics and health on a port of its own; the gateway also the API reference,
  // Auth its admin listener (for the console's pods).
  const metrics = { name: 'metrics', containerPort: 9464, protocol: 'TCP' };
  const extra = {
    gateway: [{ name: 'docs', containerPort: 8082, protocol: 'TCP' }],
    auth: [{ name: 'admin', containerPort: 50061, protocol: 'TCP' }],
  } as Record<string, object[]>;
  expect(ctr.ports).toEqual([{ name: meta.portName, containerPort: meta.port, protocol: 'TCP' }, metrics, ...(extra[c] ?? [])]);
  expect(ctr.env).toEqual(expect.arrayContaining([{ name: 'METRICS_PORT', value: '9464' }]));
  expect(deployment(minimal, c).spec.template.metadata.annotations).toMatchObject({
    'prometheus.io/scrape': 'true',
    'prometheus.io/port': '9464',
    'prometheus.io/path': '/metrics',
  });
  expect(ctr.image).toBe(`ghcr.io/example/media-service${meta.ffmpeg ? '-ffmpeg' : ''}:0.1.0`);
  expect(ctr.args).toEqual([MAIN[c]]);
  for (const probe of ['startupProbe', 'readinessProbe', 'livenessProbe']) {
    if (meta.portName === 'http') {
      // The gateway's and the console's health is on their ops listener: ready only while their backends answer.
      expect(ctr[probe].httpGet).toEqual({ path: probe === 'readinessProbe' ? '/readyz' : '/livez', port: 'metrics' });
    } else {
      // Liveness asks for the process alone; the others for the overall status (database included).
      expect(ctr[probe].grpc).toEqual(probe === 'livenessProbe' ? { port: meta.port, service: 'liveness' } : { port: meta.port });
    }
  }
});

test('each Service selects its Deployment and targets a named container port', () => {
  for (const c of NAMES) {
    const svc = byName(minimal, 'Service', `${FULLNAME}-${c}`);
    const dep = deployment(minimal, c);
    expect(svc.spec.type).toBe('ClusterIP');
    expect(dep.spec.selector.matchLabels).toEqual(svc.spec.selector);
    expect(dep.spec.template.metadata.labels).toMatchObject(svc.spec.selector);
    expect(svc.spec.ports).toEqual([
      {
        name: COMPONENTS[c].portName,
        port: WEB.has(c) ? 80 : COMPONENTS[c].port,
        targetPort: COMPONENTS[c].portName,
        protocol: 'TCP',
      },
      ...(c === 'auth' ? [{ name: 'admin', port: 50061, targetPort: 'admin', protocol: 'TCP' }] : []),
      { name: 'metrics', port: 9464, targetPort: 'metrics', protocol: 'TCP' },
    ]);
  }
  // Selectors are distinct: no Service picks another component's pods.
  const selectors = ofKind(minimal, 'Service').map((s) => JSON.stringify(s.spec.selector));
  expect(new Set(selectors).size).toBe(7);
});

test('the ConfigMap points every service URL at the matching Service and port', () => {
  const cm = byName(minimal, 'ConfigMap', `${FULLNAME}-config`);
  // CONSOLE_URL is where browsers reach the console (its Ingress host), not an in-cluster address.
  for (const c of NAMES.filter((n) => !WEB.has(n))) {
    const url = new URL(cm.data[`${c.toUpperCase()}_URL`]);
    expect(url.protocol).toBe('http:');
    const svc = byName(minimal, 'Service', url.hostname);
    expect(svc.spec.selector['app.kubernetes.io/component']).toBe(c);
    expect(svc.spec.ports[0].port).toBe(Number(url.port));
  }
  expect(cm.data).toMatchObject({
    SERVICE_HOST: '0.0.0.0',
    S3_BUCKET: 'media-blobs',
    S3_ENDPOINT: 'http://minio.minio.svc:9000',
    S3_FORCE_PATH_STYLE: 'true',
    MONGODB_DB_PREFIX: 'media_',
  });
  // Credentials never go to the ConfigMap (NATS_URL may hold some).
  expect(JSON.stringify(cm.data)).not.toMatch(
    /mongodb:|nats:|NATS_URL|media-secret-key|S3_ACCESS_KEY_ID|S3_SECRET_ACCESS_KEY|BLOB_SIGNING_SECRET/,
  );
});

test.each(NAMES)('%s: settings come from the ConfigMap; secrets only where needed', (c) => {
  for (const [docs, secretName] of [
    [minimal, `${FULLNAME}-secret`],
    [full, 'media-credentials'],
  ] as const) {
    const ctr = container(docs, c);
    expect(ctr.envFrom[0]).toEqual({ configMapRef: { name: `${FULLNAME}-config` } });
    // Only Storage reads S3 keys; the internet-facing gateway gets no Secret at all.
    const secretRefs = ctr.envFrom.filter((e: { secretRef?: object }) => e.secretRef);
    expect(secretRefs).toEqual(c === 'storage' ? [{ secretRef: { name: secretName } }] : []);
    const mongo = ctr.env.find((e: { name: string }) => e.name === 'MONGODB_URL');
    if (COMPONENTS[c].database) {
      expect(mongo.valueFrom.secretKeyRef).toEqual({ name: secretName, key: 'MONGODB_URL' });
      expect(mongo.valueFrom.secretKeyRef.optional).toBeUndefined();
    } else {
      expect(mongo).toBeUndefined();
    }
  }
});

test('the chart Secret holds the credentials, base64-encoded', () => {
  const secret = byName(minimal, 'Secret', `${FULLNAME}-secret`);
  const decoded = Object.fromEntries(
    Object.entries(secret.data as Record<string, string>).map(([k, v]) => [k, Buffer.from(v, 'base64').toString()]),
  );
  expect(decoded).toEqual({
    MONGODB_URL: 'mongodb://mongo.db.svc:27017',
    NATS_URL: 'nats://nats.messaging.svc:4222',
    S3_ACCESS_KEY_ID: 'media',
    S3_SECRET_ACCESS_KEY: 'media-secret-key',
    // Generated (helm template cannot look up the one an installed release keeps).
    AUTH_ADMIN_TOKEN: expect.stringMatching(/^[A-Za-z0-9]{48}$/),
  });
});

test.each(NAMES.filter((c) => c !== 'console'))(
  '%s: NATS_URL (which may hold a password) comes from the Secret, or from nats.url beside an existing Secret',
  async (c) => {
    const natsEnv = (docs: Doc[]) => container(docs, c).env.find((e: { name: string }) => e.name === 'NATS_URL');
    expect(natsEnv(minimal).valueFrom.secretKeyRef).toEqual({ name: `${FULLNAME}-secret`, key: 'NATS_URL' });
    // full-values: secrets.existingSecret and nats.url both set.
    expect(natsEnv(full)).toEqual({ name: 'NATS_URL', value: 'tls://nats.messaging.svc:4222' });
    // An existing Secret without nats.url: read from that Secret.
    const fromSecret = await render([ciValues('full-values.yaml')], ['nats.url=']);
    expect(natsEnv(fromSecret).valueFrom.secretKeyRef).toEqual({ name: 'media-credentials', key: 'NATS_URL' });
  },
);

test('NATS_STREAM_REPLICAS: nats.streamReplicas (1 by default) for every process on the bus, the same for all', async () => {
  const replicas = (docs: Doc[], c: Component) =>
    (container(docs, c).env as { name: string; value?: string }[]).find((e) => e.name === 'NATS_STREAM_REPLICAS')?.value;
  const three = await render([ciValues('minimal-values.yaml')], ['nats.streamReplicas=3']);
  for (const c of NAMES) {
    // The console does not use NATS; the others create or update the streams at their start.
    const bus = c !== 'console';
    expect([c, replicas(minimal, c), replicas(three, c)]).toEqual([c, bus ? '1' : undefined, bus ? '3' : undefined]);
  }
});

test('a PodDisruptionBudget per component running more than one pod: evicted one at a time', async () => {
  const pdbs = (docs: Doc[]) => Object.fromEntries(ofKind(docs, 'PodDisruptionBudget').map((p) => [p.metadata.name, p.spec]));
  const byDefault = pdbs(minimal);
  expect(Object.keys(byDefault).sort()).toEqual(NAMES.map((c) => `${FULLNAME}-${c}`).sort());
  for (const c of NAMES) {
    const spec = byDefault[`${FULLNAME}-${c}`];
    // The Deployment's own selector: the budget counts exactly its pods.
    expect(spec).toEqual({ maxUnavailable: 1, selector: { matchLabels: deployment(minimal, c).spec.selector.matchLabels } });
  }
  const changed = pdbs(
    await render(
      [ciValues('minimal-values.yaml')],
      [
        // One pod: a budget would block every drain, so none.
        'auth.replicaCount=1',
        'jobs.autoscaling.minReplicas=1',
        'billing.pdb.create=false',
        'gateway.pdb.minAvailable=50%',
        'storage.pdb.maxUnavailable=25%',
      ],
    ),
  );
  expect(Object.keys(changed).sort()).toEqual(['console', 'gateway', 'probe', 'storage'].map((c) => `${FULLNAME}-${c}`));
  expect(changed[`${FULLNAME}-gateway`]).toMatchObject({ minAvailable: '50%' });
  expect(changed[`${FULLNAME}-gateway`].maxUnavailable).toBeUndefined();
  expect(changed[`${FULLNAME}-storage`]).toMatchObject({ maxUnavailable: '25%' });
  // Jobs without the HPA: its replicaCount decides.
  const fixed = pdbs(await render([ciValues('minimal-values.yaml')], ['jobs.autoscaling.enabled=false', 'jobs.replicaCount=1']));
  expect(fixed[`${FULLNAME}-jobs`]).toBeUndefined();
});

test('the HPA (autoscaling/v2, CPU) targets the jobs Deployment, which leaves replicas to it', () => {
  const [hpa] = ofKind(minimal, 'HorizontalPodAutoscaler');
  expect(hpa!.apiVersion).toBe('autoscaling/v2');
  expect(hpa!.spec.scaleTargetRef).toEqual({ apiVersion: 'apps/v1', kind: 'Deployment', name: `${FULLNAME}-jobs` });
  expect(hpa!.spec).toMatchObject({ minReplicas: 2, maxReplicas: 10 });
  expect(hpa!.spec.metrics).toEqual([
    { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 70 } } },
  ]);
  expect(deployment(minimal, 'jobs').spec.replicas).toBeUndefined();
  expect(deployment(minimal, 'auth').spec.replicas).toBe(2);
  // Autoscaling off: fixed replicas.
  expect(deployment(full, 'jobs').spec.replicas).toBe(3);
});

test('jobs and probe get their worker settings and a work directory on an emptyDir', () => {
  const env = (c: Component) =>
    Object.fromEntries(
      container(full, c)
        .env.filter((e: { value?: string }) => 'value' in e)
        .map((e: { name: string; value: string }) => [e.name, e.value]),
    );
  expect(env('jobs')).toMatchObject({
    WORKER_CONCURRENCY: '4',
    JOB_STAGE_AHEAD: '0',
    JOB_MEMORY_LIMIT_MB: '768',
    JOB_STAGING_TIMEOUT_SEC: '300',
    JOB_TIMEOUT_SEC: '600',
    WORK_DIR: '/work',
    JOB_LEASE_SEC: '20',
  });
  // Unset (null): the service's own default, WORKER_CONCURRENCY.
  expect(container(minimal, 'jobs').env.map((e: { name: string }) => e.name)).not.toContain('JOB_STAGE_AHEAD');
  // Unset (null): sized by the service from the pod's memory limit.
  expect(container(minimal, 'jobs').env.map((e: { name: string }) => e.name)).not.toContain('JOB_MEMORY_LIMIT_MB');
  expect(env('probe')).toMatchObject({ JOB_TIMEOUT_SEC: '3600', WORK_DIR: '/work' });
  expect(env('auth')).toMatchObject({ AUTH_ADMIN_HOST: '0.0.0.0', AUTH_ADMIN_URL: 'http://127.0.0.1:50061' });
  const volumes = deployment(minimal, 'jobs').spec.template.spec.volumes;
  expect(volumes.find((v: { name: string }) => v.name === 'work').emptyDir).toEqual({ sizeLimit: '20Gi' });
});

test('full values: Ingress to the gateway, digests, pull secrets, scheduling', () => {
  const [ingress] = ofKind(full, 'Ingress');
  expect(ingress!.spec.ingressClassName).toBe('nginx');
  expect(ingress!.spec.tls).toEqual([{ secretName: 'media-tls', hosts: ['media.example.org'] }]);
  const path = ingress!.spec.rules[0].http.paths[0];
  expect(ingress!.spec.rules[0].host).toBe('media.example.org');
  expect(path.backend.service).toEqual({ name: `${FULLNAME}-gateway`, port: { name: 'http' } });
  const gatewaySvc = byName(full, 'Service', `${FULLNAME}-gateway`);
  expect(gatewaySvc.spec.ports[0]).toMatchObject({ name: 'http', port: 443 });
  expect(gatewaySvc.spec.type).toBe('LoadBalancer');

  expect(container(full, 'jobs').image).toBe(
    'registry.example.org/media-ffmpeg@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef',
  );
  expect(container(full, 'probe').image).toBe('ghcr.io/example/media-service-ffmpeg:1.2.3');
  const jobsPod = deployment(full, 'jobs').spec.template.spec;
  expect(jobsPod.imagePullSecrets).toEqual([{ name: 'regcred' }]);
  expect(jobsPod.nodeSelector).toEqual({ workload: 'media' });
  expect(jobsPod.tolerations).toHaveLength(1);
  expect(byName(full, 'ServiceAccount', FULLNAME).metadata.annotations).toEqual({
    'eks.amazonaws.com/role-arn': 'arn:aws:iam::123456789012:role/media',
  });
});

test("the web console: its own Deployment, Service and Ingress host; it calls Auth's admin listener with the token Auth checks", async () => {
  const env = (docs: Doc[], c: Component) => container(docs, c).env as { name: string; value?: string; valueFrom?: any }[];
  const value = (docs: Doc[], c: Component, name: string) => env(docs, c).find((e) => e.name === name);
  for (const [docs, secretName] of [
    [minimal, `${FULLNAME}-secret`],
    [full, 'media-credentials'],
  ] as const) {
    // Auth's admin listener faces the pod network, behind its Service's "admin" port and the token.
    expect(value(docs, 'auth', 'AUTH_ADMIN_HOST')).toEqual({ name: 'AUTH_ADMIN_HOST', value: '0.0.0.0' });
    const adminUrl = new URL(value(docs, 'console', 'AUTH_ADMIN_URL')!.value!);
    const authSvc = byName(docs, 'Service', adminUrl.hostname);
    expect(authSvc.spec.selector['app.kubernetes.io/component']).toBe('auth');
    expect(authSvc.spec.ports.find((p: { port: number }) => p.port === Number(adminUrl.port)).targetPort).toBe('admin');
    const tokenRef = { secretKeyRef: { name: secretName, key: 'AUTH_ADMIN_TOKEN' } };
    for (const c of ['auth', 'console'] as const) expect(value(docs, c, 'AUTH_ADMIN_TOKEN')!.valueFrom).toEqual(tokenRef);
    // The console needs neither the database nor the bus.
    expect(env(docs, 'console').map((e) => e.name)).not.toEqual(expect.arrayContaining(['MONGODB_URL']));
    expect(env(docs, 'console').map((e) => e.name)).not.toContain('NATS_URL');
  }
  expect(value(full, 'console', 'API_URL')!.value).toBe('https://media.example.org');
  expect(value(full, 'console', 'DOCS_URL')!.value).toBe('https://media.example.org/docs/');
  expect(value(minimal, 'console', 'DOCS_URL')).toBeUndefined();
  // Browsers reach it on its Ingress host, which CONSOLE_URL (403 texts, login links) names.
  const ingress = byName(full, 'Ingress', `${FULLNAME}-console`);
  expect(ingress.spec.rules[0].host).toBe('console.example.org');
  expect(ingress.spec.rules[0].http.paths[0].backend.service).toEqual({ name: `${FULLNAME}-console`, port: { name: 'http' } });
  expect(ingress.spec.tls).toEqual([{ secretName: 'console-tls', hosts: ['console.example.org'] }]);
  expect(byName(full, 'ConfigMap', `${FULLNAME}-config`).data.CONSOLE_URL).toBe('https://console.example.org');
  expect(ofKind(minimal, 'Ingress')).toEqual([]);

  // console.networkPolicy: only the console's pods reach Auth's admin port; gRPC and metrics stay open.
  const policy = byName(full, 'NetworkPolicy', `${FULLNAME}-auth-admin`);
  expect(policy.spec.podSelector.matchLabels).toEqual(byName(full, 'Service', `${FULLNAME}-auth`).spec.selector);
  expect(policy.spec.ingress).toEqual([
    {
      ports: [
        { port: 50051, protocol: 'TCP' },
        { port: 9464, protocol: 'TCP' },
      ],
    },
    {
      from: [{ podSelector: { matchLabels: deployment(full, 'console').spec.selector.matchLabels } }],
      ports: [{ port: 50061, protocol: 'TCP' }],
    },
  ]);
  expect(ofKind(minimal, 'NetworkPolicy')).toEqual([]);

  // A token given is the one kept; one too short to guard the listener is refused.
  const given = 'x'.repeat(40);
  const withToken = await render([ciValues('minimal-values.yaml')], [`secrets.authAdminToken=${given}`]);
  const data = byName(withToken, 'Secret', `${FULLNAME}-secret`).data;
  expect(Buffer.from(data.AUTH_ADMIN_TOKEN, 'base64').toString()).toBe(given);
  await expect(render([ciValues('minimal-values.yaml')], ['secrets.authAdminToken=short'])).rejects.toThrow(/authAdminToken/);

  // console.enabled=false: no console, and the admin listener back on the Auth pods' loopback.
  const off = await render([ciValues('full-values.yaml')], ['console.enabled=false']);
  expect(off.filter((d) => d.metadata.name === `${FULLNAME}-console`)).toEqual([]);
  expect(ofKind(off, 'Ingress').map((d) => d.metadata.name)).toEqual([`${FULLNAME}-gateway`]);
  expect(ofKind(off, 'NetworkPolicy')).toEqual([]);
  expect(value(off, 'auth', 'AUTH_ADMIN_HOST')!.value).toBe('127.0.0.1');
  expect(value(off, 'auth', 'AUTH_ADMIN_TOKEN')).toBeUndefined();
  expect(container(off, 'auth').ports.map((p: { name: string }) => p.name)).not.toContain('admin');
  expect(byName(off, 'Service', `${FULLNAME}-auth`).spec.ports.map((p: { name: string }) => p.name)).toEqual(['grpc', 'metrics']);
  const offMinimal = await render([ciValues('minimal-values.yaml')], ['console.enabled=false']);
  expect(Object.keys(byName(offMinimal, 'Secret', `${FULLNAME}-secret`).data)).not.toContain('AUTH_ADMIN_TOKEN');
});

test('internal calls: a Secret with a token per caller and their hashes, kept on upgrades; each pod gets only what it needs', async () => {
  const secret = byName(minimal, 'Secret', `${FULLNAME}-internal`);
  expect(secret.metadata.annotations).toEqual({ 'helm.sh/resource-policy': 'keep' });
  const data = Object.fromEntries(
    Object.entries(secret.data as Record<string, string>).map(([k, v]) => [k, Buffer.from(v, 'base64').toString()]),
  );
  const callers = ['gateway', 'console', 'jobs', 'probe', 'storage'];
  expect(Object.keys(data).sort()).toEqual(['INTERNAL_CALLERS', ...callers.map((c) => `INTERNAL_TOKEN_${c.toUpperCase()}`)].sort());
  const sha = (t: string) => createHash('sha256').update(t).digest('hex');
  expect(data.INTERNAL_CALLERS).toBe(callers.map((c) => `${c}:${sha(data[`INTERNAL_TOKEN_${c.toUpperCase()}`]!)}`).join(','));
  for (const c of callers) expect(data[`INTERNAL_TOKEN_${c.toUpperCase()}`]).toMatch(/^[A-Za-z0-9]{64}$/);
  const refOf = (docs: Doc[], c: Component, name: string) =>
    (container(docs, c).env as { name: string; valueFrom?: { secretKeyRef: unknown } }[]).find((e) => e.name === name)?.valueFrom
      ?.secretKeyRef;
  for (const [docs, secretName] of [
    [minimal, `${FULLNAME}-internal`],
    [full, 'media-internal'],
  ] as const) {
    for (const c of NAMES) {
      // A caller holds its own token, a service the hashes: no pod holds another's token.
      const token = callers.includes(c) ? { name: secretName, key: `INTERNAL_TOKEN_${c.toUpperCase()}` } : undefined;
      const hashes = COMPONENTS[c].portName === 'grpc' ? { name: secretName, key: 'INTERNAL_CALLERS' } : undefined;
      expect([refOf(docs, c, 'INTERNAL_TOKEN'), refOf(docs, c, 'INTERNAL_CALLERS')]).toEqual([token, hashes]);
      expect(container(docs, c).envFrom.filter((e: { secretRef?: { name: string } }) => e.secretRef?.name === secretName)).toEqual([]);
    }
  }
  // internalCalls.existingSecret: that Secret, none made.
  expect(ofKind(full, 'Secret').map((d) => d.metadata.name)).toEqual([]);
});

test('networkPolicy.enabled: a policy per component; a gRPC port admits only the pods that call it', async () => {
  expect(ofKind(minimal, 'NetworkPolicy')).toEqual([]);
  const on = await render([ciValues('minimal-values.yaml')], ['networkPolicy.enabled=true', 'console.networkPolicy.enabled=true']);
  const policies = ofKind(on, 'NetworkPolicy');
  // console.networkPolicy's admin-only policy gives way: it would open Auth's gRPC port to all.
  expect(policies.map((p) => p.metadata.name).sort()).toEqual(NAMES.map((c) => `${FULLNAME}-${c}`).sort());
  const pods = (...cs: Component[]) => cs.map((c) => ({ podSelector: { matchLabels: deployment(on, c).spec.selector.matchLabels } }));
  const ports = (...ps: number[]) => ps.map((port) => ({ port, protocol: 'TCP' }));
  const metrics = { ports: ports(9464) };
  const ingressOf = (c: Component) => {
    const p = byName(on, 'NetworkPolicy', `${FULLNAME}-${c}`);
    expect(p.spec.podSelector.matchLabels).toEqual(deployment(on, c).spec.selector.matchLabels);
    expect(p.spec.policyTypes).toEqual(['Ingress']);
    return p.spec.ingress;
  };
  expect(ingressOf('gateway')).toEqual([{ ports: ports(8080, 8082) }, metrics]);
  expect(ingressOf('console')).toEqual([{ ports: ports(8083) }, metrics]);
  expect(ingressOf('auth')).toEqual([
    { from: pods('gateway', 'jobs', 'storage'), ports: ports(50051) },
    { from: pods('console'), ports: ports(50061) },
    metrics,
  ]);
  expect(ingressOf('storage')).toEqual([{ from: pods('gateway', 'console', 'jobs', 'probe'), ports: ports(50052) }, metrics]);
  expect(ingressOf('jobs')).toEqual([{ from: pods('gateway', 'console', 'probe'), ports: ports(50053) }, metrics]);
  expect(ingressOf('probe')).toEqual([{ from: pods('gateway'), ports: ports(50054) }, metrics]);
  expect(ingressOf('billing')).toEqual([{ from: pods('gateway', 'console'), ports: ports(50055) }, metrics]);
  for (const p of policies) expect(() => validateManifest(p)).not.toThrow();
  // Without the console: no rule names its pods, and no admin port is open.
  const noConsole = await render([ciValues('minimal-values.yaml')], ['networkPolicy.enabled=true', 'console.enabled=false']);
  const storage = byName(noConsole, 'NetworkPolicy', `${FULLNAME}-storage`).spec.ingress[0].from;
  expect(
    storage.map((f: { podSelector: { matchLabels: Record<string, string> } }) => f.podSelector.matchLabels['app.kubernetes.io/component']),
  ).toEqual(['gateway', 'jobs', 'probe']);
  expect(byName(noConsole, 'NetworkPolicy', `${FULLNAME}-auth`).spec.ingress).toHaveLength(2);
});

test('rollouts: the gateway keeps serving through a preStop pause, and its grace period covers the pause and SHUTDOWN_GRACE_SEC', async () => {
  const gw = container(minimal, 'gateway');
  expect(gw.lifecycle).toEqual({ preStop: { exec: { command: ['sleep', '5'] } } });
  // 5 s pause + 20 s for requests in progress (SHUTDOWN_GRACE_SEC's default) fit in 35 s.
  expect(deployment(minimal, 'gateway').spec.template.spec.terminationGracePeriodSeconds).toBe(35);
  expect(container(minimal, 'console').lifecycle).toEqual({ preStop: { exec: { command: ['sleep', '5'] } } });
  for (const c of NAMES.filter((n) => !WEB.has(n))) expect(container(minimal, c).lifecycle).toBeUndefined();
  const noPause = await render(
    [ciValues('minimal-values.yaml')],
    ['gateway.preStopSleepSec=0', 'gateway.terminationGracePeriodSeconds=120'],
  );
  expect(container(noPause, 'gateway').lifecycle).toBeUndefined();
  expect(deployment(noPause, 'gateway').spec.template.spec.terminationGracePeriodSeconds).toBe(120);
});

test('extra volumes (a CA bundle, say) are mounted where asked, beside the chart’s own', async () => {
  const docs = await render(
    [ciValues('minimal-values.yaml')],
    [
      'jobs.extraVolumes[0].name=ca',
      'jobs.extraVolumes[0].configMap.name=corp-ca',
      'jobs.extraVolumeMounts[0].name=ca',
      'jobs.extraVolumeMounts[0].mountPath=/etc/media-ca',
      'jobs.extraVolumeMounts[0].readOnly=true',
    ],
  );
  const pod = deployment(docs, 'jobs').spec.template.spec;
  expect(pod.volumes.map((v: { name: string }) => v.name)).toEqual(['tmp', 'work', 'ca']);
  expect(pod.volumes[2]).toEqual({ name: 'ca', configMap: { name: 'corp-ca' } });
  expect(pod.containers[0].volumeMounts).toContainEqual({ name: 'ca', mountPath: '/etc/media-ca', readOnly: true });
  validateManifest(byName(docs, 'Deployment', `${FULLNAME}-jobs`));
});

test('IPv6 clusters: config.listenAddress "::" is what every pod listens on', async () => {
  const docs = await render([ciValues('minimal-values.yaml')], ['config.listenAddress=::']);
  expect(byName(docs, 'ConfigMap', `${FULLNAME}-config`).data.SERVICE_HOST).toBe('::');
  expect(container(docs, 'gateway').env).toContainEqual({ name: 'HOST', value: '::' });
});

test('the API reference: DOCS_PORT 8082 on the gateway by default, on the pod address; gateway.docs.enabled=false: none', async () => {
  const on = container(await render([ciValues('minimal-values.yaml')], ['config.listenAddress=::']), 'gateway');
  expect(on.env).toEqual(
    expect.arrayContaining([
      { name: 'DOCS_PORT', value: '8082' },
      { name: 'DOCS_HOST', value: '::' },
    ]),
  );
  const off = container(await render([ciValues('minimal-values.yaml')], ['gateway.docs.enabled=false']), 'gateway');
  expect(off.env.map((e: { name: string }) => e.name)).not.toContain('DOCS_PORT');
  expect(off.ports.map((p: { name: string }) => p.name)).toEqual(['http', 'metrics']);
});

test("metrics: a ServiceMonitor on every Service's metrics port, a PrometheusRule with the alert rules; metrics.enabled=false: none, the gateway probes its port", async () => {
  const monitor = byName(full, 'ServiceMonitor', FULLNAME);
  expect(monitor.metadata.labels).toMatchObject({ release: 'kube-prometheus' });
  expect(monitor.spec.endpoints).toEqual([{ port: 'metrics', path: '/metrics', interval: '30s' }]);
  for (const svc of ofKind(full, 'Service')) expect(svc.metadata.labels).toMatchObject(monitor.spec.selector.matchLabels);
  const rule = byName(full, 'PrometheusRule', FULLNAME);
  const alerts = rule.spec.groups.flatMap((g: { rules: { alert: string }[] }) => g.rules.map((r) => r.alert));
  expect(alerts).toEqual(
    expect.arrayContaining([
      'MediaQueueBacklogGrowing',
      'MediaHighErrorRate',
      'MediaWebhookBacklog',
      'MediaBreakerOpen',
      'MediaDiskReserveLow',
    ]),
  );
  // promtool accepts the very rules the chart ships.
  const { execFile } = await import('node:child_process');
  const { existsSync } = await import('node:fs');
  if (existsSync('/usr/bin/promtool')) {
    const out = await new Promise<string>((resolve, reject) =>
      execFile('/usr/bin/promtool', ['check', 'rules', `${chartDir}/files/alerts.yml`], (err, stdout) =>
        err ? reject(err) : resolve(stdout),
      ),
    );
    expect(out).toContain(`SUCCESS: ${alerts.length} rules found`);
  }

  const off = await render([ciValues('minimal-values.yaml')], ['metrics.enabled=false']);
  const gw = container(off, 'gateway');
  expect(gw.ports.map((p: { name: string }) => p.name)).not.toContain('metrics');
  expect(gw.env.map((e: { name: string }) => e.name)).not.toContain('METRICS_PORT');
  expect(gw.readinessProbe).toMatchObject({ tcpSocket: { port: 'http' } });
});

test('tracing: off by default; with tracing.otlpEndpoint every component exports, named for itself', async () => {
  const otel = (docs: Doc[], c: Component) =>
    Object.fromEntries(
      (container(docs, c).env as { name: string; value?: string }[])
        .filter((e) => e.name.startsWith('OTEL_'))
        .map((e) => [e.name, e.value]),
    );
  for (const c of NAMES) expect(otel(minimal, c)).toEqual({});
  const on = await render(
    [ciValues('minimal-values.yaml')],
    ['tracing.otlpEndpoint=http://otel-collector:4318', 'tracing.sampler=parentbased_traceidratio', 'tracing.samplerArg=0.25'],
  );
  for (const c of NAMES)
    expect(otel(on, c)).toEqual({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://otel-collector:4318',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
      OTEL_SERVICE_NAME: `media-${c}`,
      OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
      OTEL_TRACES_SAMPLER_ARG: '0.25',
    });
  // A misspelt sampler is refused by the schema, not discovered in a pod's log.
  await expect(render([ciValues('minimal-values.yaml')], ['tracing.sampler=ratio'])).rejects.toThrow(/sampler/);
});

test('storage.resumableUploads: the listener port on the Service, /blob/ on an Ingress host of its own, open in the NetworkPolicy', async () => {
  expect(byName(minimal, 'Service', `${FULLNAME}-storage`).spec.ports.map((p: { name: string }) => p.name)).not.toContain('http');
  const docs = await render(
    [ciValues('minimal-values.yaml')],
    [
      'storage.resumableUploads=true',
      'storage.publicUrl=https://uploads.example.com',
      'secrets.blobSigningSecret=shared',
      'ingress.enabled=true',
      'storage.ingress.host=uploads.example.com',
      'networkPolicy.enabled=true',
    ],
  );
  for (const doc of docs) expect(() => validateManifest(doc)).not.toThrow();
  expect(byName(docs, 'Service', `${FULLNAME}-storage`).spec.ports).toContainEqual({
    name: 'http',
    port: 8081,
    targetPort: 'http',
    protocol: 'TCP',
  });
  expect(container(docs, 'storage').ports).toContainEqual({ name: 'http', containerPort: 8081, protocol: 'TCP' });
  // Uploads in progress capped per pod (its /tmp and memory); per address off behind the Ingress.
  expect(container(docs, 'storage').env).toEqual(
    expect.arrayContaining([
      { name: 'S3_UPLOADS_IN_FLIGHT', value: '16' },
      { name: 'S3_UPLOADS_PER_ADDRESS', value: '0' },
    ]),
  );
  const ingress = byName(docs, 'Ingress', `${FULLNAME}-storage`);
  expect(ingress.spec.rules).toEqual([
    {
      host: 'uploads.example.com',
      http: {
        paths: [{ path: '/blob/', pathType: 'Prefix', backend: { service: { name: `${FULLNAME}-storage`, port: { name: 'http' } } } }],
      },
    },
  ]);
  const policy = byName(docs, 'NetworkPolicy', `${FULLNAME}-storage`);
  expect(policy.spec.ingress).toContainEqual({ ports: [{ port: 8081, protocol: 'TCP' }] });
});

test('storage.resumableUploads without storage.publicUrl or a signing secret is refused, saying what to set', async () => {
  const values = ciValues('minimal-values.yaml');
  await expect(render([values], ['storage.resumableUploads=true', 'secrets.blobSigningSecret=x'])).rejects.toThrow(
    /storage\.resumableUploads needs storage\.publicUrl/,
  );
  await expect(render([values], ['storage.resumableUploads=true', 'storage.publicUrl=https://uploads.example.com'])).rejects.toThrow(
    /storage\.resumableUploads needs secrets\.blobSigningSecret/,
  );
});
