// A key's "last used" time: recorded when a request authenticates with it or a gateway reports
// requests it admitted, at most once a minute per key per replica, and shown in the key list.
import { AuthAdminService, AuthService } from '@media/proto/media/auth/v1/auth_pb.js';
import { createServiceClient, fromTimestamp, type ServiceClient } from '@media/platform';
import { createLastUsed } from '../src/domain/last-used.js';
import { embeddedAuth } from './embedded.js';

const auth = embeddedAuth('last-used');
let api: ServiceClient<typeof AuthService>;
let admin: ServiceClient<typeof AuthAdminService>;

beforeAll(() => {
  api = createServiceClient(AuthService, auth().url);
  admin = createServiceClient(AuthAdminService, auth().adminUrl);
});

afterAll(() => {
  api?.close();
  admin?.close();
});

const until = async (check: () => Promise<boolean>) => {
  for (let i = 0; i < 100 && !(await check()); i++) await new Promise((r) => setTimeout(r, 20));
};

test('a key reads "never used" until a request authenticates with it, then that time; a reported request counts too', async () => {
  const { account } = await admin.client.createAccount({});
  const accountId = account!.accountId;
  const made = await Promise.all(['first', 'second'].map((name) => admin.client.createKey({ accountId, name })));
  const lastUsed = async () =>
    Object.fromEntries((await admin.client.listKeys({ accountId })).keys.map((k) => [k.name, k.lastUsedAt && fromTimestamp(k.lastUsedAt)]));
  expect(await lastUsed()).toEqual({ first: undefined, second: undefined });

  const before = Date.now();
  await api.client.authenticate({ authorization: made[0]!.authorization });
  await until(async () => (await lastUsed()).first !== undefined);
  const first = (await lastUsed()).first!;
  expect(first.getTime()).toBeGreaterThanOrEqual(before - 1);
  expect(first.getTime()).toBeLessThanOrEqual(Date.now());
  expect((await lastUsed()).second).toBeUndefined();

  // A gateway admitted a request with the second key on its own and reports it.
  await api.client.countRequests({ admitted: [{ keyId: made[1]!.key!.keyId, window: 1n, count: 1 }] });
  await until(async () => (await lastUsed()).second !== undefined);
  expect((await lastUsed()).second).toBeInstanceOf(Date);
});

test('each key is written at most once a minute; a failed write is tried again on the next use', async () => {
  const writes: string[] = [];
  let fail = true;
  const recorder = createLastUsed({
    touchKey: async (keyId) => {
      writes.push(keyId);
      if (fail) throw new Error('database briefly down');
    },
  });
  recorder.seen('key_a');
  await new Promise((r) => setImmediate(r));
  fail = false;
  // The failed write is forgotten: the next use writes again, then the minute holds further ones.
  for (let i = 0; i < 100; i++) recorder.seen('key_a');
  recorder.seen('key_b');
  expect(writes).toEqual(['key_a', 'key_a', 'key_b']);
});
