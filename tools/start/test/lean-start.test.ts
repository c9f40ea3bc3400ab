// An embedded start (no MONGODB_URL, S3_BUCKET or NATS_URL) loads none of the networked drivers:
// they cost it about 25 MB of RSS and 0.2 s of start-up. A static import of one of them anywhere
// on the start path fails this test.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { root, run, stackEnv } from '@media/testkit';

const DRIVERS = /node_modules\/(mongodb|@aws-sdk|@smithy|@nats-io)\//;

// Runs in its own Node process: the whole stack, started and stopped, then the CommonJS modules
// it loaded (the drivers are CommonJS; importing them from ESM goes through the same cache).
const script = `
import { createRequire } from 'node:module';
const { startStack } = await import(${JSON.stringify(pathToFileURL(join(root, 'packages/stack/dist/index.js')).href)});
const stack = await startStack(JSON.parse(process.env.STACK_ENV));
await stack.close();
const loaded = Object.keys(createRequire(import.meta.url).cache);
process.stdout.write(JSON.stringify(loaded));
`;

test('an embedded start loads no MongoDB, S3 or NATS client', async () => {
  const dataDir = await mkdtemp(join(tmpdir(), 'lean-start-'));
  try {
    const env = { PATH: process.env.PATH, STACK_ENV: JSON.stringify({ ...stackEnv(dataDir), LOG_LEVEL: 'error' }) };
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], { env, cwd: root });
    const loaded: string[] = JSON.parse(stdout);
    expect(loaded.length).toBeGreaterThan(100); // the cache was read: Fastify, pino, mingo...
    expect(loaded.filter((f) => DRIVERS.test(f))).toEqual([]);
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
}, 30_000);
