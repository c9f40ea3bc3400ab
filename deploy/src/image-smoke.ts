// npm run smoke:images -w deploy [-- --app-image IMG --ffmpeg-image IMG]
// Runs the two built images (deploy/docker/Dockerfile) the way the chart runs them: each of the
// seven Deployments' container, with the environment `helm template` renders for it (ConfigMap,
// Secret, env), its args and its volumes, as the image's user on a read-only root
// (pod-runner.ts), against NATS JetStream, the MongoDB-wire test server and s3rver on loopback.
// Then it checks what the kubelet's probes check (gRPC health of the five services, the
// gateway's port) and drives the public API end to end (smoke-api.ts): an account and key made
// with the admin CLI inside the Auth container (as NOTES.txt tells operators), an upload to the
// signed S3 URL, a sync process, a probe, an async job, the usage export; then the web console:
// a login link from the admin CLI opens a session (the console's pod calling Auth's admin
// listener through its Service, with the token from the chart's Secret) and the Keys page lists
// the account's key.
//
// The host's network is shared: Kubernetes Service names become 127.0.0.1, each component
// keeping its own port, so 8080, 8083, 50051-50055 and 50061 must be free. Needs root and buildah (the
// images in its local storage). Exit code 0 only if every step answered as expected.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createClient } from '@connectrpc/connect';
import { createGrpcTransport } from '@connectrpc/connect-node';
import { Health, HealthCheckResponse_ServingStatus as Serving } from '@media/proto/grpc/health/v1/health_pb.js';
import { acceptsConnections, startMongo, startNatsServer, startS3Server, s3Env, waitForPort } from '@media/testkit';
import { cleanupHelm, render, type Doc } from './helm.js';
import { container, containerEnv, decodedSecrets, FULLNAME } from './pod-env.js';
import { assertImage, runContainer, type PodProcess } from './pod-runner.js';
import { driveApi, driveConsole } from './smoke-api.js';

const { values } = parseArgs({
  options: {
    'app-image': { type: 'string', default: 'localhost/media-service' },
    'ffmpeg-image': { type: 'string', default: 'localhost/media-service-ffmpeg' },
  },
});
// Start order: what each one calls is up before it.
const COMPONENTS = ['auth', 'billing', 'storage', 'probe', 'jobs', 'gateway', 'console'] as const;
const ADMIN_PORT = 50061;
const CONSOLE_PORT = 8083;

/** What the chart's grpc: probe asks: grpc.health.v1 Check of the overall ("") status, over gRPC. */
async function checkHealth(port: number): Promise<void> {
  const health = createClient(Health, createGrpcTransport({ baseUrl: `http://127.0.0.1:${port}` }));
  const { status } = await health.check({ service: '' }, { timeoutMs: 3000 });
  if (status !== Serving.SERVING) throw new Error(`grpc.health.v1 on ${port}: ${Serving[status]}`);
}

/** Where this smoke test puts a component's ops listener (the chart's 9464, one per pod). */
const metricsPort = (component: string) => 9464 + COMPONENTS.indexOf(component as (typeof COMPONENTS)[number]);

async function startComponent(
  docs: Doc[],
  component: string,
  secrets: Record<string, Record<string, string>>,
  scratch: string,
): Promise<PodProcess> {
  const ctr = container(docs, component);
  const env = containerEnv(docs, component, secrets);
  // Service DNS names -> loopback (host network; every component keeps its own port).
  for (const [k, v] of Object.entries(env)) env[k] = v.replace(new RegExp(`^http://${FULLNAME}-[a-z]+:`), 'http://127.0.0.1:');
  // Every pod's ops listener is on 9464 in its own network namespace; here they share the host's.
  if (env.METRICS_PORT) env.METRICS_PORT = String(metricsPort(component));
  const image = String(ctr.image).includes('-ffmpeg:') ? values['ffmpeg-image']! : values['app-image']!;
  const pod = await runContainer(image, ctr, env, join(scratch, component));
  const port = Number(ctr.ports[0].containerPort);
  try {
    const exited = new AbortController();
    pod.proc.once('exit', (code) => exited.abort(new Error(`exited ${code} before opening port ${port}`)));
    await waitForPort(port, 60_000, component, exited.signal);
    // The ops listener opens once the process's own listeners are up.
    if (env.METRICS_PORT) await waitForPort(Number(env.METRICS_PORT), 30_000, `${component} /metrics`, exited.signal);
    if (ctr.ports[0].name === 'grpc') await checkHealth(port);
  } catch (err) {
    await pod.stop();
    throw new Error(`${component} (${pod.argv.join(' ')}): ${(err as Error).message}\n${pod.log()}`);
  }
  console.log(
    `${component}: ${pod.argv.join(' ')} (${image}) listening on ${port}${ctr.ports[0].name === 'grpc' ? ', gRPC health SERVING' : ''}`,
  );
  return pod;
}

try {
  for (const image of [values['app-image']!, values['ffmpeg-image']!]) await assertImage(image);
  const busy = (
    await Promise.all(
      [8080, CONSOLE_PORT, 50051, 50052, 50053, 50054, 50055, ADMIN_PORT, ...COMPONENTS.map(metricsPort)].map(async (p) =>
        (await acceptsConnections(p)) ? p : undefined,
      ),
    )
  ).filter(Boolean);
  if (busy.length) throw new Error(`ports in use: ${busy.join(', ')} (the chart's fixed ports; stop what holds them)`);
} catch (err) {
  console.error(`image smoke: ${(err as Error).message}`);
  process.exit(1);
}

const [nats, mongo, s3] = await Promise.all([startNatsServer(), startMongo(), startS3Server()]);
const scratch = mkdtempSync(join(tmpdir(), 'image-smoke-'));
const pods: PodProcess[] = [];
try {
  const s3v = s3Env(s3);
  const docs = await render(
    [],
    [
      `mongodb.url=${mongo.url}`,
      `nats.url=${nats.url}`,
      `s3.bucket=${s3v.S3_BUCKET}`,
      `s3.endpoint=${s3v.S3_ENDPOINT}`,
      `s3.region=${s3v.S3_REGION}`,
      's3.forcePathStyle=true',
      `s3.accessKeyId=${s3v.S3_ACCESS_KEY_ID}`,
      `s3.secretAccessKey=${s3v.S3_SECRET_ACCESS_KEY}`,
    ],
  );
  const secrets = decodedSecrets(docs);
  for (const component of COMPONENTS) pods.push(await startComponent(docs, component, secrets, scratch));
  const auth = pods[0]!;
  const admin = async (...args: string[]) => JSON.parse(await auth.exec(['node', 'tools/admin/dist/admin.js', ...args]));
  // What the kubelet asks the gateway (its probes): live, and ready with all five backends up.
  for (const path of ['/livez', '/readyz']) {
    const res = await fetch(`http://127.0.0.1:${metricsPort('gateway')}${path}`);
    if (res.status !== 200) throw new Error(`gateway ${path}: ${res.status} ${await res.text()}`);
  }
  const scraped = await (await fetch(`http://127.0.0.1:${metricsPort('jobs')}/metrics`)).text();
  if (!scraped.includes('media_jobs_queued')) throw new Error('jobs /metrics has no media_jobs_queued');
  console.log('gateway: /livez and /readyz 200 (backends ready); jobs: /metrics served');
  await driveApi({ baseUrl: 'http://127.0.0.1:8080', admin, scratch });
  await driveConsole(`http://127.0.0.1:${CONSOLE_PORT}`, `http://127.0.0.1:${metricsPort('console')}`, admin);
  // The media image runs ffmpeg through its fork server (built in the image's build stage); a
  // service that fell back to starting every run directly says so in its log.
  const jobs = pods[COMPONENTS.indexOf('jobs')]!;
  await jobs.exec(['test', '-f', '/app/packages/fork-server/dist/native/forkserver.so']);
  for (const component of ['jobs', 'probe'] as const) {
    if (pods[COMPONENTS.indexOf(component)]!.log().includes('fork server'))
      throw new Error(`${component} did not use the ffmpeg fork server: see its log`);
  }
  console.log('jobs, probe: ffmpeg and ffprobe ran through the fork server');
  // Termination as the kubelet starts it: the container's preStop hook runs in it first (so its
  // program must be in the image), and the pod keeps answering meanwhile; SIGTERM comes after.
  for (const [i, component] of COMPONENTS.entries()) {
    const hook: string[] | undefined = container(docs, component).lifecycle?.preStop?.exec?.command;
    if (!hook) continue;
    const started = Date.now();
    const running = pods[i]!.exec(hook);
    // It keeps answering meanwhile: the gateway 401 to a keyless call, the console its sign-in page.
    const [url, expected] =
      component === 'console' ? [`http://127.0.0.1:${CONSOLE_PORT}/signin`, 200] : ['http://127.0.0.1:8080/account', 401];
    const answer = await fetch(url);
    if (answer.status !== expected) throw new Error(`during ${component}'s preStop hook ${url} answered ${answer.status}, not ${expected}`);
    await running;
    console.log(`${component}: preStop hook ${hook.join(' ')} ran in the image (${Date.now() - started} ms), answering meanwhile`);
  }
  console.log('image smoke: every step answered as expected');
} catch (err) {
  process.exitCode = 1;
  console.error(`image smoke FAILED: ${(err as Error).message}`);
  for (const [i, pod] of pods.entries()) console.error(`--- ${COMPONENTS[i]} (last lines)\n${pod.log().split('\n').slice(-15).join('\n')}`);
} finally {
  for (const pod of pods) await pod.stop();
  await Promise.all([nats.stop(), mongo.stop(), s3.stop()]);
  cleanupHelm();
  rmSync(scratch, { recursive: true, force: true });
}
