// Test harness: the whole stack on ephemeral ports in a temp DATA_DIR, plus a console client.
// TEST_ADAPTERS=networked runs it on the networked adapters instead of the embedded defaults: a
// nats-server, the MongoDB-wire test server (or MONGODB_URL) and s3rver, started for each stack;
// with TEST_S3_UPLOADS=storage too, uploads go through Storage's listener on S3 (S3_UPLOADS=storage).
import { createForkServers, type ForkServerPool } from '@media/media';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@connectrpc/connect';
import { AccountStatus, AuthAdminService } from '@media/proto/media/auth/v1/auth_pb.js';
import type { RateCounts } from '@media/gateway';
import { createServiceClient, shiftableRateClock, toTimestamp, type ShiftableRateClock } from '@media/platform';
import type { S3TestServer } from '@media/testkit';
import { EPHEMERAL_PORTS, startStack, type Env, type Stack, type StackOptions } from './index.js';

export type TestAdapters = 'embedded' | 'networked';

/** What TEST_ADAPTERS=networked started for one stack (a server the caller's env replaced is absent). */
export interface NetworkedTestInfra {
  natsUrl?: string;
  mongo?: { url: string; dbPrefix: string };
  s3?: S3TestServer;
}

export interface TestStack extends Stack {
  admin: Client<typeof AuthAdminService>;
  /** Which adapter set the stack runs on (TEST_ADAPTERS=networked, else embedded). */
  adapters: TestAdapters;
  /** The servers started for this stack under TEST_ADAPTERS=networked; undefined on embedded. */
  networked?: NetworkedTestInfra;
  /** A new account (status active unless given) with one key; returns the Authorization value too. */
  newAccount(status?: AccountStatus): Promise<{ accountId: string; keyId: string; key: string; authorization: string }>;
  newKey(accountId: string, expiresAt?: Date): Promise<{ keyId: string; key: string; authorization: string }>;
  /** The rate windows' clock of Auth and the gateway: `freshWindow()` starts a test in a new window. */
  rateClock: ShiftableRateClock;
  /** What the stack's gateway heard from Auth in its rate reports. */
  gatewayRate: RateWatch;
}

/** The counts a gateway heard in its rate reports (pass `onReported` to it), latest per key. */
export function rateWatch() {
  const heard = new Map<string, RateCounts>();
  return {
    onReported(counts: RateCounts[]): void {
      for (const c of counts) heard.set(c.keyId, c);
    },
    /** The key's current-window count in the gateway's latest report answer (0: none heard). */
    current: (keyId: string): number => heard.get(keyId)?.current ?? 0,
  };
}

export type RateWatch = ReturnType<typeof rateWatch>;

/** The adapter set tests run on: TEST_ADAPTERS=networked, else the embedded defaults. */
export function testAdapters(): TestAdapters {
  return process.env.TEST_ADAPTERS === 'networked' ? 'networked' : 'embedded';
}

/**
 * A nats-server, a MongoDB-wire server (or MONGODB_URL, under a database prefix unique to this
 * stack) and an s3rver for one stack, so JetStream streams, databases and the bucket are its own.
 * A server whose address the caller already gives in `env` is not started.
 */
async function startNetworkedInfra(given: Env): Promise<{ info: NetworkedTestInfra; env: Env; stop(): Promise<void> }> {
  // Loaded only here: the testkit (s3rver, the wire server) stays out of embedded and production runs.
  const { startMongo, startNatsServer, startS3Server, s3Env } = await import('@media/testkit');
  // The AWS SDK's "Node 20 support ends" notice would otherwise be printed once per test file.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  const stops: (() => Promise<void>)[] = [];
  const stop = async () => {
    for (const s of stops.splice(0).reverse()) await s().catch(() => undefined);
  };
  const started = <T extends { stop(): Promise<void> }>(server: T): T => (stops.push(() => server.stop()), server);
  const info: NetworkedTestInfra = {};
  const env: Env = {};
  try {
    const [nats, mongo, s3] = await Promise.all([
      given.NATS_URL ? undefined : startNatsServer().then(started),
      given.MONGODB_URL ? undefined : startMongo().then(started),
      given.S3_BUCKET ? undefined : startS3Server().then(started),
    ]);
    if (nats) {
      info.natsUrl = env.NATS_URL = nats.url;
    }
    if (mongo) {
      const dbPrefix = `t${randomBytes(5).toString('hex')}_`;
      // A shared external MongoDB keeps nothing of the run.
      if (mongo.external) stops.push(() => mongo.dropDatabases(dbPrefix));
      info.mongo = { url: mongo.url, dbPrefix };
      Object.assign(env, { MONGODB_URL: mongo.url, MONGODB_DB_PREFIX: dbPrefix });
    }
    if (s3) {
      info.s3 = s3;
      Object.assign(env, s3Env(s3));
      // TEST_S3_UPLOADS=storage: upload URLs are Storage's listener's on S3 too (resumable).
      if (process.env.TEST_S3_UPLOADS === 'storage') {
        Object.assign(env, { S3_UPLOADS: 'storage', BLOB_SIGNING_SECRET: randomBytes(24).toString('base64url') });
      }
    }
    return { info, env, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

let sharedForkServers: ForkServerPool | undefined;
/** Made on first use; its servers die with this process (and do not keep it alive). */
function testForkServers(): ForkServerPool {
  sharedForkServers ??= createForkServers({ enabled: true });
  return sharedForkServers;
}

export async function startTestStack(env: Env = {}, options: StackOptions = {}): Promise<TestStack> {
  const adapters = testAdapters();
  const infra = adapters === 'networked' ? await startNetworkedInfra(env) : undefined;
  let dataDir: string | undefined;
  let stack: Stack;
  const rateClock = shiftableRateClock();
  const gatewayRate = rateWatch();
  const rate = { rateClock: rateClock.now, onGatewayRateReport: gatewayRate.onReported, ...options };
  try {
    dataDir = await mkdtemp(join(tmpdir(), 'media-stack-'));
    // Values the caller passes win over the networked ones. A small disk reserve: test machines
    // may have less than the default free, and the reserve's own tests set theirs.
    stack = await startStack(
      { LOG_LEVEL: 'silent', DATA_DIR: dataDir, HOST: '127.0.0.1', DISK_RESERVE_MB: '64', ...EPHEMERAL_PORTS, ...infra?.env, ...env },
      // One set of fork servers for every stack of this test process, as one service would have;
      // a stack that sets FFMPEG_FORK_SERVER gets its services' own.
      env.FFMPEG_FORK_SERVER === undefined ? { forkServers: testForkServers(), ...rate } : rate,
    );
  } catch (err) {
    await infra?.stop();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
    throw err;
  }
  const dir = dataDir;
  const admin = createServiceClient(AuthAdminService, stack.adminUrl, { breaker: false });
  const newKey = async (accountId: string, expiresAt?: Date) => {
    const res = await admin.client.createKey({ accountId, name: 'test', expiresAt: expiresAt ? toTimestamp(expiresAt) : undefined });
    return { keyId: res.key!.keyId, key: res.secret, authorization: res.authorization };
  };
  return {
    ...stack,
    admin: admin.client,
    adapters,
    networked: infra?.info,
    newKey,
    rateClock,
    gatewayRate,
    async newAccount(status = AccountStatus.ACTIVE) {
      const { account } = await admin.client.createAccount({ status });
      return { accountId: account!.accountId, ...(await newKey(account!.accountId)) };
    },
    async close() {
      admin.close();
      try {
        await stack.close();
      } finally {
        // After the stack: its services hold connections to these servers until then.
        await infra?.stop();
        await rm(dir, { recursive: true, force: true });
      }
    },
  };
}
