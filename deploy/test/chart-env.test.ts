// The environment each rendered container would get (ConfigMap + Secret + env) is accepted by that
// process's own configuration spec, and selects the external backends (MongoDB, NATS, S3) rather
// than the embedded ones: a chart that renders but would not start, or that would silently keep
// state per pod, fails here.
import { blobStoreConfigFromEnv } from '@media/blobstore';
import { consoleConfigSpec } from '@media/console';
import { gatewayConfigSpec } from '@media/gateway';
import { createHash } from 'node:crypto';
import { CALLER_IDENTITIES, generateInternalCredentials, loadConfig, parseInternalCallers } from '@media/platform';
import { authConfigSpec } from '@media/svc-auth';
import { billingConfigSpec } from '@media/svc-billing';
import { jobsConfigSpec } from '@media/svc-jobs';
import { probeConfigSpec } from '@media/svc-probe';
import { storageConfigSpec } from '@media/svc-storage';
import { ciValues, cleanupHelm, render, type Doc } from '../src/helm.js';
import { containerEnv, decodedSecrets, FULLNAME } from '../src/pod-env.js';

const specs = {
  gateway: gatewayConfigSpec,
  auth: authConfigSpec,
  storage: storageConfigSpec,
  jobs: jobsConfigSpec,
  probe: probeConfigSpec,
  billing: billingConfigSpec,
  console: consoleConfigSpec,
};
type Component = keyof typeof specs;
const PORTS: Record<Component, [string, number]> = {
  gateway: ['PORT', 8080],
  auth: ['AUTH_PORT', 50051],
  storage: ['STORAGE_PORT', 50052],
  jobs: ['JOBS_PORT', 50053],
  probe: ['PROBE_PORT', 50054],
  billing: ['BILLING_PORT', 50055],
  console: ['CONSOLE_PORT', 8083],
};

const TOKEN = 't'.repeat(48);
/** Stands in for full-values' internalCalls.existingSecret (media-internal). */
const made = generateInternalCredentials();
const INTERNAL = {
  'media-internal': {
    ...Object.fromEntries(CALLER_IDENTITIES.map((id) => [`INTERNAL_TOKEN_${id.toUpperCase()}`, made.tokens[id]])),
    INTERNAL_CALLERS: made.callers,
  },
};
let minimal: Doc[];
let full: Doc[];
let fullNatsInSecret: Doc[];
beforeAll(async () => {
  [minimal, full, fullNatsInSecret] = await Promise.all([
    render([ciValues('minimal-values.yaml')]),
    render([ciValues('full-values.yaml')]),
    render([ciValues('full-values.yaml')], ['nats.url=']),
  ]);
});
afterAll(cleanupHelm);

describe.each(Object.keys(specs) as Component[])('%s', (c) => {
  test('its config spec accepts the rendered environment, on external backends', () => {
    for (const [docs, secrets] of [
      [minimal, decodedSecrets(minimal)],
      // full-values uses an existing Secret: stand in for it.
      [
        full,
        { ...INTERNAL, 'media-credentials': { MONGODB_URL: 'mongodb+srv://media:pw@cluster0.example.net/', AUTH_ADMIN_TOKEN: TOKEN } },
      ],
      // ...and the replica-set form most self-hosted MongoDBs use, with NATS_URL in that Secret.
      [
        fullNatsInSecret,
        {
          ...INTERNAL,
          'media-credentials': {
            MONGODB_URL: 'mongodb://media:pw@m1:27017,m2:27017,m3:27017/?replicaSet=rs0',
            NATS_URL: 'nats://media:pw@n1:4222,nats://n2:4222',
            AUTH_ADMIN_TOKEN: TOKEN,
          },
        },
      ],
    ] as const) {
      const env = containerEnv(docs, c, secrets);
      const config = loadConfig(specs[c], env) as Record<string, unknown>;
      const [portVar, port] = PORTS[c];
      expect(config[portVar]).toBe(port);
      if (c === 'console') {
        // Auth's admin listener through its Service, with the token Auth is given; no bus, no database.
        expect(config.AUTH_ADMIN_URL).toBe(`http://${FULLNAME}-auth:50061`);
        expect(config.AUTH_ADMIN_TOKEN).toBe(containerEnv(docs, 'auth', secrets).AUTH_ADMIN_TOKEN);
        expect(config.AUTH_ADMIN_TOKEN).toMatch(/^\S{32,}$/);
        expect([config.JOBS_URL, config.BILLING_URL]).toEqual([`http://${FULLNAME}-jobs:50053`, `http://${FULLNAME}-billing:50055`]);
        expect(config.CONSOLE_HOST).toBe('0.0.0.0');
        expect(config.METRICS_PORT).toBe(9464);
        continue;
      }
      expect(config.NATS_URL).toMatch(/^(nats|tls):\/\//);
      if (c === 'gateway') {
        expect(config.HOST).toBe('0.0.0.0');
        expect(config.AUTH_URL).toBe(`http://${FULLNAME}-auth:50051`);
        expect(config.BILLING_URL).toBe(`http://${FULLNAME}-billing:50055`);
        continue;
      }
      expect(config.SERVICE_HOST).toBe('0.0.0.0');
      expect(config.MONGODB_URL).toMatch(/^mongodb(\+srv)?:\/\//);
      // On the pod network for the console's pods, and then guarded by the token.
      if (c === 'auth') expect([config.AUTH_ADMIN_HOST, typeof config.AUTH_ADMIN_TOKEN]).toEqual(['0.0.0.0', 'string']);
      if (c === 'jobs')
        expect([config.STORAGE_URL, config.AUTH_URL]).toEqual([`http://${FULLNAME}-storage:50052`, `http://${FULLNAME}-auth:50051`]);
      if (c === 'probe')
        expect([config.STORAGE_URL, config.JOBS_URL]).toEqual([`http://${FULLNAME}-storage:50052`, `http://${FULLNAME}-jobs:50053`]);
      if (c === 'jobs' || c === 'probe') expect(config.WORK_DIR).toBe('/work');
    }
  });
});

test('storage selects S3 (not local disk) with the rendered S3 settings', () => {
  const defaults = { dataDir: '/tmp/media', publicBaseUrl: 'http://localhost', signingSecret: 'x' };
  const min = blobStoreConfigFromEnv(containerEnv(minimal, 'storage', decodedSecrets(minimal)), defaults);
  expect(min.s3).toEqual({
    bucket: 'media-blobs',
    region: 'us-east-1',
    endpoint: 'http://minio.minio.svc:9000',
    forcePathStyle: true,
    accessKeyId: 'media',
    secretAccessKey: 'media-secret-key',
  });
  // No keys: the default AWS credential chain (e.g. IRSA through the ServiceAccount annotation).
  const irsa = blobStoreConfigFromEnv(
    containerEnv(full, 'storage', { ...INTERNAL, 'media-credentials': { MONGODB_URL: 'mongodb://m' } }),
    defaults,
  );
  expect(irsa.s3).toEqual({
    bucket: 'media-blobs',
    region: 'eu-west-1',
    publicEndpoint: 'https://media-blobs.s3.eu-west-1.amazonaws.com',
    forcePathStyle: false,
  });
});

test("internal calls: each caller's rendered INTERNAL_TOKEN matches the hash every service it calls is given", () => {
  for (const [docs, secrets] of [
    [minimal, decodedSecrets(minimal)],
    [full, { ...INTERNAL, 'media-credentials': { MONGODB_URL: 'mongodb://m', AUTH_ADMIN_TOKEN: TOKEN } }],
  ] as const) {
    const sha = (token: string) => createHash('sha256').update(token).digest('hex');
    const tokens = Object.fromEntries(
      CALLER_IDENTITIES.map((id) => [
        id,
        (loadConfig(specs[id], containerEnv(docs, id, secrets)) as Record<string, unknown>).INTERNAL_TOKEN as string,
      ]),
    );
    // One token per caller, all different, long enough.
    expect(new Set(Object.values(tokens)).size).toBe(CALLER_IDENTITIES.length);
    for (const t of Object.values(tokens)) expect(t).toMatch(/^\S{32,}$/);
    for (const service of ['auth', 'storage', 'jobs', 'probe', 'billing'] as const) {
      const config = loadConfig(specs[service], containerEnv(docs, service, secrets)) as { INTERNAL_CALLERS?: string };
      const hashes = parseInternalCallers(config.INTERNAL_CALLERS!);
      for (const id of CALLER_IDENTITIES) expect(hashes.get(id)?.toString('hex')).toBe(sha(tokens[id]!));
    }
  }
});

test('storage.resumableUploads: Storage and the console accept the rendered environment, uploads through the listener', async () => {
  const docs = await render(
    [ciValues('minimal-values.yaml')],
    [
      'storage.resumableUploads=true',
      'storage.publicUrl=https://uploads.example.com',
      'secrets.blobSigningSecret=shared-by-every-storage-pod',
    ],
  );
  const secrets = decodedSecrets(docs);
  const storage = loadConfig(storageConfigSpec, containerEnv(docs, 'storage', secrets));
  expect([storage.S3_UPLOADS, storage.S3_BUCKET, storage.STORAGE_HTTP_PORT, storage.STORAGE_HTTP_HOST]).toEqual([
    'storage',
    'media-blobs',
    8081,
    '0.0.0.0',
  ]);
  expect([storage.PUBLIC_BASE_URL, storage.BLOB_SIGNING_SECRET]).toEqual(['https://uploads.example.com', 'shared-by-every-storage-pod']);
  const console = loadConfig(consoleConfigSpec, containerEnv(docs, 'console', secrets));
  expect(console.STORAGE_PUBLIC_URL).toBe('https://uploads.example.com');
  // Off (the default): presigned S3 PUTs, no listener.
  expect(loadConfig(storageConfigSpec, containerEnv(minimal, 'storage', decodedSecrets(minimal))).S3_UPLOADS).toBe('direct');
});
