// npm run smoke:images -w deploy [-- --app-image IMG --ffmpeg-image IMG]
// Runs the two built images (deploy/docker/Dockerfile) the way the chart runs them: each of the
// six Deployments' container, with the environment `helm template` renders for it (ConfigMap,
// Secret, env, volumes), against NATS JetStream, the MongoDB-wire test server and s3rver on
// loopback. Then drives the public API end to end: an account and key made with the admin CLI
// inside the Auth container (as NOTES.txt tells operators), an upload to the signed S3 URL, a
// sync process, a probe, an async job, the usage export.
//
// Containers run with buildah (chroot isolation, the host's network: Kubernetes Service names
// become 127.0.0.1, each component keeping its own port), which needs no container engine or
// cgroups. Ports 8080, 50051-50055 and 50061 must be free. Exit code 0 only if every step
// answered as expected.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { chownSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs, promisify } from 'node:util';
import { startMongo, startNatsServer, startS3Server, s3Env } from '@media/testkit';
import { cleanupHelm, render, type Doc } from './helm.js';
import { container, containerEnv, decodedSecrets, FULLNAME } from './pod-env.js';
import { driveApi } from './smoke-api.js';

const run = promisify(execFile);
const { values } = parseArgs({
  options: {
    'app-image': { type: 'string', default: 'localhost/media-service' },
    'ffmpeg-image': { type: 'string', default: 'localhost/media-service-ffmpeg' },
  },
});
// Start order: what each one calls is up before it.
const COMPONENTS = ['auth', 'billing', 'storage', 'probe', 'jobs', 'gateway'] as const;
const ADMIN_PORT = 50061;
const buildahEnv = { ...process.env, STORAGE_DRIVER: process.env.STORAGE_DRIVER ?? 'vfs' };
const buildah = async (args: string[]) => (await run('buildah', args, { env: buildahEnv, maxBuffer: 16 << 20 })).stdout.trim();

interface Running {
  container: string;
  env: Record<string, string>;
  proc: ChildProcess;
  log: () => string;
}

const portOpen = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, '127.0.0.1', () => {
      socket.end();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
  });

async function waitForPort(port: number, proc: ChildProcess, withinMs = 60_000): Promise<void> {
  const deadline = Date.now() + withinMs;
  while (!(await portOpen(port))) {
    if (proc.exitCode !== null) throw new Error(`exited ${proc.exitCode} before opening port ${port}`);
    if (Date.now() > deadline) throw new Error(`port ${port} not open after ${withinMs} ms`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

const envFlags = (env: Record<string, string>) => Object.entries(env).flatMap(([k, v]) => ['--env', `${k}=${v}`]);

async function startComponent(docs: Doc[], component: string, secrets: Record<string, Record<string, string>>, scratch: string): Promise<Running> {
  const ctr = container(docs, component);
  const env = containerEnv(docs, component, secrets);
  // Service DNS names -> loopback (host network; every component keeps its own port).
  for (const [k, v] of Object.entries(env)) env[k] = v.replace(new RegExp(`^http://${FULLNAME}-[a-z]+:`), 'http://127.0.0.1:');
  const image = String(ctr.image).includes('-ffmpeg:') ? values['ffmpeg-image']! : values['app-image']!;
  const id = await buildah(['from', '--pull=never', image]);
  // The chart's emptyDir volumes, owned by the image's user as fsGroup would make them.
  const volumes: string[] = [];
  for (const m of ctr.volumeMounts ?? []) {
    const dir = join(scratch, component, m.name);
    mkdirSync(dir, { recursive: true });
    chownSync(dir, 10001, 10001);
    volumes.push('--volume', `${dir}:${m.mountPath}`);
  }
  const config = JSON.parse(await buildah(['inspect', '--type', 'image', image])).OCIv1.config;
  const argv = [...(config.Entrypoint ?? []), ...(ctr.args ?? [])];
  const proc = spawn('buildah', ['run', '--isolation', 'chroot', ...volumes, ...envFlags(env), id, '--', ...argv], {
    env: buildahEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true, // its own process group, stopped as one
  });
  let log = '';
  const keep = (d: Buffer) => (log = (log + d.toString()).slice(-20_000));
  proc.stdout!.on('data', keep);
  proc.stderr!.on('data', keep);
  const running = { container: id, env, proc, log: () => log };
  try {
    await waitForPort(Number(ctr.ports[0].containerPort), proc);
  } catch (err) {
    await stopAll([running]);
    throw new Error(`${component} (${argv.join(' ')}): ${(err as Error).message}\n${log}`);
  }
  console.log(`${component}: ${argv.join(' ')} (${image}) listening on ${ctr.ports[0].containerPort}`);
  return running;
}

async function stopAll(running: Running[]): Promise<void> {
  for (const r of running) {
    try {
      process.kill(-r.proc.pid!, 'SIGTERM');
    } catch {
      // already gone
    }
  }
  await Promise.all(running.map((r) => (r.proc.exitCode !== null ? undefined : new Promise((res) => r.proc.once('exit', res)))));
  for (const r of running) await buildah(['rm', r.container]).catch(() => undefined);
}

const busy = (await Promise.all([8080, 50051, 50052, 50053, 50054, 50055, ADMIN_PORT].map(async (p) => ((await portOpen(p)) ? p : undefined)))).filter(Boolean);
if (busy.length) throw new Error(`ports in use: ${busy.join(', ')} (the chart's fixed ports; stop what holds them)`);

const [nats, mongo, s3] = await Promise.all([startNatsServer(), startMongo(), startS3Server()]);
const scratch = mkdtempSync(join(tmpdir(), 'image-smoke-'));
const running: Running[] = [];
try {
  const s3v = s3Env(s3);
  const docs = await render([], [
    `mongodb.url=${mongo.url}`,
    `nats.url=${nats.url}`,
    `s3.bucket=${s3v.S3_BUCKET}`,
    `s3.endpoint=${s3v.S3_ENDPOINT}`,
    `s3.region=${s3v.S3_REGION}`,
    's3.forcePathStyle=true',
    `s3.accessKeyId=${s3v.S3_ACCESS_KEY_ID}`,
    `s3.secretAccessKey=${s3v.S3_SECRET_ACCESS_KEY}`,
  ]);
  const secrets = decodedSecrets(docs);
  for (const component of COMPONENTS) running.push(await startComponent(docs, component, secrets, scratch));
  const auth = running[0]!;
  const admin = async (...args: string[]) =>
    JSON.parse(await buildah(['run', '--isolation', 'chroot', ...envFlags(auth.env), auth.container, '--', 'node', 'tools/admin/dist/admin.js', ...args]));
  await driveApi({ baseUrl: 'http://127.0.0.1:8080', admin, scratch });
  console.log('image smoke: every step answered as expected');
} catch (err) {
  process.exitCode = 1;
  console.error(`image smoke FAILED: ${(err as Error).message}`);
  for (const [i, r] of running.entries()) console.error(`--- ${COMPONENTS[i]} (last lines)\n${r.log().split('\n').slice(-15).join('\n')}`);
} finally {
  await stopAll(running);
  await Promise.all([nats.stop(), mongo.stop(), s3.stop()]);
  cleanupHelm();
  rmSync(scratch, { recursive: true, force: true });
}
