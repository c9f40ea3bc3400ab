// values.yaml is fully documented (a `## @param <path> <text>` line per value) and values.schema.json
// covers every value and refuses bad ones: helm template fails before rendering anything.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { chartDir, ciValues, cleanupHelm, helm, KUBE_VERSION } from '../src/helm.js';

const valuesText = readFileSync(join(chartDir, 'values.yaml'), 'utf8');
const schema = JSON.parse(readFileSync(join(chartDir, 'values.schema.json'), 'utf8'));

/** Paths of the values: non-empty maps are walked, anything else (scalars, lists, {}) is a value. */
function leafPaths(value: unknown, prefix = ''): string[] {
  if (value && typeof value === 'object' && !Array.isArray(value) && Object.keys(value).length > 0) {
    return Object.entries(value).flatMap(([k, v]) => leafPaths(v, prefix ? `${prefix}.${k}` : k));
  }
  return [prefix];
}

/** The schema node for a dotted path, following properties and local $refs. */
function schemaAt(path: string): Record<string, any> | undefined {
  const deref = (node: Record<string, any>) => (node.$ref ? schema.definitions[node.$ref.replace('#/definitions/', '')] : node);
  let node: Record<string, any> | undefined = schema;
  for (const key of path.split('.')) node = node && deref(node).properties?.[key];
  return node && deref(node);
}

const tmp = mkdtempSync(join(tmpdir(), 'chart-values-'));
afterAll(() => {
  rmSync(tmp, { recursive: true, force: true });
  cleanupHelm();
});

test('every value in values.yaml has a "## @param <path> <description>" line, and every @param names a value', () => {
  const paths = leafPaths(parse(valuesText)).sort();
  const params = [...valuesText.matchAll(/^\s*## @param (\S+)(.*)$/gm)];
  expect(params.map((m) => m[1]).sort()).toEqual(paths);
  for (const [, path, description] of params)
    expect({ path, description: description!.trim().length > 3 }).toEqual({ path, description: true });
  expect(paths.length).toBeGreaterThan(100); // sanity: the walk saw the component blocks
});

test('values.schema.json (draft-07) declares every value', () => {
  expect(schema.$schema).toBe('http://json-schema.org/draft-07/schema#');
  expect(schema.additionalProperties).toBe(false);
  const undeclared = leafPaths(parse(valuesText)).filter((p) => !schemaAt(p));
  expect(undeclared).toEqual([]);
});

async function templateWith(values: object): Promise<{ code: number; stdout: string; stderr: string }> {
  const file = join(tmp, `values-${Math.random().toString(36).slice(2)}.yaml`);
  writeFileSync(file, JSON.stringify(values)); // JSON is YAML
  return helm([
    'template',
    'media',
    chartDir,
    '--kube-version',
    KUBE_VERSION,
    '--values',
    ciValues('minimal-values.yaml'),
    '--values',
    file,
  ]);
}

test('the minimal values render (the control for the refusals below)', async () => {
  expect((await templateWith({})).code).toBe(0);
});

test.each([
  ['a wrong type', { jobs: { workerConcurrency: 'four' } }, /jobs\.workerConcurrency: Invalid type\. Expected: integer, given: string/],
  ['a string replica count', { gateway: { replicaCount: '2' } }, /gateway\.replicaCount: Invalid type/],
  ['an unknown key (typo)', { jobs: { replicas: 3 } }, /Additional property replicas is not allowed/],
  ['a MongoDB URL of another scheme', { mongodb: { url: 'postgres://db:5432' } }, /mongodb\.url: Does not match pattern/],
  ['no MongoDB URL and no existing Secret', { mongodb: { url: '' } }, /mongodb\.url: String length must be greater than or equal to 1/],
  ['a NATS URL that is not one', { nats: { url: 'localhost:4222' } }, /nats\.url: Does not match pattern/],
  ['a websocket NATS URL (the Node client has no websockets)', { nats: { url: 'wss://nats:443' } }, /nats\.url: Does not match pattern/],
  ['no NATS URL and no existing Secret', { nats: { url: '' } }, /nats\.url: String length must be greater than or equal to 1/],
  ['a NATS URL with a path', { nats: { url: 'nats://n1:4222/x' } }, /nats\.url: Does not match pattern/],
  [
    'NATS credentials in plain values beside an existing Secret',
    { secrets: { existingSecret: 'creds' }, nats: { url: 'nats://media:pw@n1:4222' } },
    /nats\.url: Does not match pattern '\^\[\^@\]\*\$'/,
  ],
  ['no stream copies', { nats: { streamReplicas: 0 } }, /nats\.streamReplicas: Must be greater than or equal to 1/],
  ['more stream copies than NATS allows', { nats: { streamReplicas: 7 } }, /nats\.streamReplicas: Must be less than or equal to 5/],
  [
    'a disruption budget that blocks every drain',
    { gateway: { pdb: { maxUnavailable: 0 } } },
    /gateway\.pdb\.maxUnavailable: Must be greater than or equal to 1/,
  ],
  ['a disruption budget that is no number', { auth: { pdb: { minAvailable: 'half' } } }, /auth\.pdb\.minAvailable: Does not match pattern/],
  ['an invalid bucket name', { s3: { bucket: 'Media_Blobs' } }, /s3\.bucket: Does not match pattern/],
  [
    'an S3 key id without its secret',
    { s3: { secretAccessKey: '' } },
    /s3\.secretAccessKey: String length must be greater than or equal to 1/,
  ],
  ['resources without limits', { auth: { resources: { limits: null } } }, /auth\.resources: limits is required/],
  ['an unknown log level', { config: { logLevel: 'verbose' } }, /config\.logLevel: config\.logLevel must be one of/],
  [
    'a memory size Kubernetes refuses (1ki)',
    { jobs: { resources: { limits: { cpu: '1', memory: '1ki' } } } },
    /jobs\.resources\.limits\.memory: Does not match pattern/,
  ],
  // null removes a default (helm's merge rule).
  ['limits without memory', { jobs: { resources: { limits: { cpu: '1', memory: null } } } }, /jobs\.resources\.limits: memory is required/],
  [
    'an out-of-range HPA target',
    { jobs: { autoscaling: { targetCPUUtilizationPercentage: 150 } } },
    /targetCPUUtilizationPercentage: Must be less than or equal to 100/,
  ],
])('helm template refuses %s', async (_what, values, message) => {
  const out = await templateWith(values);
  expect(out.code).not.toBe(0);
  expect(out.stderr).toMatch(message);
});

test('Kubernetes quantities in every spelling it takes render, and a CPU limit may be left out', async () => {
  for (const memory of ['524288Ki', '512Mi', '0.5Gi', '500M', '2G', '1000000k', 536870912]) {
    expect({ memory, code: (await templateWith({ jobs: { resources: { limits: { cpu: '2', memory } } } })).code }).toEqual({
      memory,
      code: 0,
    });
  }
  const noCpuLimit = await templateWith({ jobs: { resources: { limits: { cpu: null, memory: '1Gi' } } } });
  expect(noCpuLimit.code).toBe(0);
  expect(noCpuLimit.stdout).toMatch(/limits:\n\s+memory: 1Gi\n/);
});

test('the defaults alone are refused: MongoDB, NATS and S3 must be given', async () => {
  const out = await helm(['template', 'media', chartDir, '--kube-version', KUBE_VERSION]);
  expect(out.code).not.toBe(0);
  expect(out.stderr).toMatch(/mongodb\.url/);
  expect(out.stderr).toMatch(/nats\.url/);
  expect(out.stderr).toMatch(/s3\.bucket/);
});

test('an HPA whose maximum is below its minimum is refused by the template', async () => {
  const out = await templateWith({ jobs: { autoscaling: { minReplicas: 5, maxReplicas: 2 } } });
  expect(out.code).not.toBe(0);
  expect(out.stderr).toContain('jobs.autoscaling.maxReplicas must be at least jobs.autoscaling.minReplicas');
});
