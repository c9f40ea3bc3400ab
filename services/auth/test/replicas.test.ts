// Several Auth replicas (as on Kubernetes): one MongoDB, one NATS. The rate count is shared, and a
// key revoked on one replica stops working on the others at once (event), not after the cache TTL.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AuthAdminService, AuthService } from '@media/proto/media/auth/v1/auth_pb.js';
import { createServiceClient, loadConfig, newId, shiftableRateClock, type ServiceClient } from '@media/platform';
import { startMongo, startNatsServer, type NatsTestServer, type TestMongo } from '@media/testkit';
import { authConfigSpec, startAuth, type RunningAuth } from '../src/index.js';

let mongo: TestMongo;
let nats: NatsTestServer;
let dataDir: string;
const replicas: RunningAuth[] = [];
const clients: ServiceClient<typeof AuthService>[] = [];
let admin: ServiceClient<typeof AuthAdminService>;
/** One rate clock for both replicas, as they share one count. */
const rateClock = shiftableRateClock();

beforeAll(async () => {
  [mongo, nats] = await Promise.all([startMongo(), startNatsServer()]);
  dataDir = await mkdtemp(join(tmpdir(), 'auth-replicas-'));
  const env = {
    LOG_LEVEL: 'silent',
    DATA_DIR: dataDir,
    MONGODB_URL: mongo.url,
    MONGODB_DB_PREFIX: `${newId('t', 8)}_`,
    NATS_URL: nats.url,
    AUTH_PORT: '0',
    AUTH_ADMIN_PORT: '0',
    // Long enough that only the revocation event can explain a fast rejection.
    AUTH_CACHE_TTL_SEC: '30',
  };
  for (let i = 0; i < 2; i++) {
    const r = await startAuth(loadConfig(authConfigSpec, env), undefined, { rateClock: rateClock.now });
    replicas.push(r);
    clients.push(createServiceClient(AuthService, r.url));
  }
  admin = createServiceClient(AuthAdminService, replicas[0]!.adminUrl);
});

afterAll(async () => {
  admin?.close();
  for (const c of clients) c.close();
  for (const r of replicas) await r.close();
  await Promise.all([mongo?.stop(), nats?.stop()]);
  await rm(dataDir, { recursive: true, force: true });
});

async function newKey() {
  const { account } = await admin.client.createAccount({});
  return admin.client.createKey({ accountId: account!.accountId, name: 'replicas' });
}

test('a key revoked on replica A is refused by replica B within moments', async () => {
  const key = await newKey();
  // Warm both caches.
  for (const c of clients) expect((await c.client.authenticate({ authorization: key.authorization })).keyId).toBe(key.key!.keyId);
  const revokedAt = Date.now();
  await admin.client.revokeKey({ keyId: key.key!.keyId });
  let refusedAfter = -1;
  for (let i = 0; i < 100 && refusedAfter < 0; i++) {
    try {
      await clients[1]!.client.authenticate({ authorization: key.authorization });
      await new Promise((r) => setTimeout(r, 50));
    } catch (err) {
      expect(err).toMatchObject({ rawMessage: 'Invalid API key' });
      refusedAfter = Date.now() - revokedAt;
    }
  }
  expect(refusedAfter).toBeGreaterThanOrEqual(0);
  expect(refusedAfter).toBeLessThan(5000);
});

test('300 requests a minute per key, counted across replicas', async () => {
  // At the start of a minute window, so the 300 cannot straddle two.
  rateClock.freshWindow();
  const key = await newKey();
  for (let i = 0; i < 300; i++) await clients[i % 2]!.client.authenticate({ authorization: key.authorization });
  for (const c of clients) {
    await expect(c.client.authenticate({ authorization: key.authorization })).rejects.toMatchObject({
      rawMessage: 'Rate limit exceeded: 300 requests a minute per key. Retry shortly.',
    });
  }
}, 60_000);
