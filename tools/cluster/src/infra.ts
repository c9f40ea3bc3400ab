// The infrastructure the chart expects outside the cluster, as processes on loopback: a 3-node
// NATS JetStream cluster (routes between them, a store folder each), the MongoDB-wire test
// server, and s3rver (the S3-compatible store the tests use).
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { waitFor, waitForPort } from '@media/testkit';
import type { ProcessSpec } from './process.js';
import { findBinary } from '@media/testkit';

export const NATS_NODES = 3;
/** s3rver's fixed credentials, and the bucket made at its start. */
export const S3 = { bucket: 'media', accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER', region: 'us-east-1' } as const;

const READY_MS = 30_000;
// The built entrypoints, whether this module runs from dist/ or (under jest) from src/.
const built = (file: string) => fileURLToPath(new URL(`../dist/${file}`, import.meta.url));
/** What a child node process needs of this one's environment, and nothing more. */
export const baseEnv = (): Record<string, string> => ({
  PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
  ...(process.env.HOME ? { HOME: process.env.HOME } : {}),
  ...(process.env.TZ ? { TZ: process.env.TZ } : {}),
});

export interface NatsNodePorts {
  client: number;
  cluster: number;
  monitor: number;
}

/** One node of the NATS cluster; `all` are every node's ports (its routes go to the others). */
export function natsNode(index: number, all: NatsNodePorts[], dir: string): ProcessSpec {
  const bin = findBinary('nats-server');
  if (!bin) throw new Error('nats-server not found (apt-get install -y nats-server)');
  const own = all[index]!;
  const store = join(dir, `nats-${index + 1}`);
  mkdirSync(store, { recursive: true });
  const routes = all.filter((_, i) => i !== index).map((p) => `nats://127.0.0.1:${p.cluster}`);
  return {
    name: `nats-${index + 1}`,
    kind: 'nats',
    // A server name is required for JetStream in a cluster; the cluster's name is shared.
    argv: [
      bin,
      '-js',
      '-a',
      '127.0.0.1',
      '-p',
      String(own.client),
      '-m',
      String(own.monitor),
      '-sd',
      store,
      '-n',
      `nats-${index + 1}`,
      '--cluster_name',
      'media',
      '--cluster',
      `nats://127.0.0.1:${own.cluster}`,
      '--routes',
      routes.join(','),
    ],
    env: baseEnv(),
    ports: { main: own.client, cluster: own.cluster, monitor: own.monitor },
    ready: (exited) => waitForPort(own.client, READY_MS, `nats-${index + 1}`, exited),
    stopGraceMs: 5000,
  };
}

/** Resolves once every node is healthy (/healthz) and knows the JetStream meta leader (/jsz). */
export async function natsClusterReady(all: NatsNodePorts[], timeoutMs = READY_MS): Promise<void> {
  const ready = async (p: NatsNodePorts) => {
    const health = await fetch(`http://127.0.0.1:${p.monitor}/healthz`);
    if (health.status !== 200) return false;
    const jsz = (await (await fetch(`http://127.0.0.1:${p.monitor}/jsz`)).json()) as { meta_cluster?: { leader?: string } };
    return Boolean(jsz.meta_cluster?.leader);
  };
  await waitFor(
    'every NATS node healthy, with a JetStream meta leader',
    async () => (await Promise.all(all.map((p) => ready(p).catch(() => false)))).every(Boolean),
    timeoutMs,
  );
}

/** The MongoDB-wire test server in a process of its own (its data lives in that process's memory). */
export function mongoWire(port: number): ProcessSpec {
  return {
    name: 'mongo',
    kind: 'mongo',
    argv: [process.execPath, built('mongo-main.js'), String(port)],
    env: baseEnv(),
    ports: { main: port },
    ready: (exited) => waitForPort(port, READY_MS, 'mongo-wire', exited),
    stopGraceMs: 5000,
  };
}

/**
 * s3rver on `port`, its objects under `dir`. s3rver 3.7 encrypts list continuation tokens with
 * DES, which Node 17+ only offers with --openssl-legacy-provider.
 */
export function s3rver(port: number, dir: string): ProcessSpec {
  mkdirSync(dir, { recursive: true });
  return {
    name: 's3',
    kind: 's3',
    argv: [process.execPath, '--openssl-legacy-provider', built('s3-main.js')],
    env: { ...baseEnv(), S3RVER_PORT: String(port), S3RVER_DIR: dir, S3RVER_BUCKET: S3.bucket },
    ports: { main: port },
    ready: (exited) => waitForPort(port, READY_MS, 's3rver', exited),
    stopGraceMs: 5000,
  };
}
