// AUTH_ADMIN_TOKEN: with it set, Auth's admin listener (any account's keys, sign-in, webhook
// secrets) answers only calls carrying it, as the chart runs it, facing the pod network for the
// web console's pods. Health checks (the kubelet's, the ops listener's) need none; the admin CLI
// sends the token from its environment.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Code, ConnectError, createClient } from '@connectrpc/connect';
import { createGrpcTransport } from '@connectrpc/connect-node';
import { Health, HealthCheckResponse_ServingStatus as Serving } from '@media/proto/grpc/health/v1/health_pb.js';
import { AuthAdminService } from '@media/proto/media/auth/v1/auth_pb.js';
import { adminClientInterceptors, ConfigError, createServiceClient, loadConfig } from '@media/platform';
import { authConfigSpec } from '../src/index.js';
import { embeddedAuth } from './embedded.js';

const TOKEN = 'a'.repeat(20) + 'b'.repeat(20);
const REFUSED = "This listener needs Auth's admin token: set AUTH_ADMIN_TOKEN to the value the Auth service has.";
const adminCli = join(import.meta.dirname, '../../../tools/admin/dist/admin.js');

const auth = embeddedAuth('admin-token', { AUTH_ADMIN_TOKEN: TOKEN });

async function createAccountWith(token: string | undefined) {
  const admin = createServiceClient(AuthAdminService, auth().adminUrl, { breaker: false, interceptors: adminClientInterceptors(token) });
  try {
    return await admin.client.createAccount({});
  } finally {
    admin.close();
  }
}

test('admin calls without the token, or with another, are refused with a sentence; with it they work', async () => {
  for (const token of [undefined, `${TOKEN}x`, 'c'.repeat(40)]) {
    const err = await createAccountWith(token).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConnectError);
    expect((err as ConnectError).code).toBe(Code.Unauthenticated);
    expect((err as ConnectError).rawMessage).toBe(REFUSED);
  }
  const { account } = await createAccountWith(TOKEN);
  expect(account?.accountId).toMatch(/^acc_/);
});

test('health checks need no token (the probes and the ops listener ask without one)', async () => {
  const health = createClient(Health, createGrpcTransport({ baseUrl: auth().adminUrl }));
  expect((await health.check({ service: '' })).status).toBe(Serving.SERVING);
});

test('the admin CLI sends AUTH_ADMIN_TOKEN from its environment', async () => {
  const run = (env: Record<string, string>) =>
    promisify(execFile)(process.execPath, [adminCli, 'account', 'create'], {
      env: { PATH: process.env.PATH, AUTH_ADMIN_URL: auth().adminUrl, ...env },
    });
  const made = JSON.parse((await run({ AUTH_ADMIN_TOKEN: TOKEN })).stdout);
  expect(made).toEqual({ account_id: expect.stringMatching(/^acc_/), status: 'active' });
  const refused = await run({}).catch((e: { code: number; stderr: string }) => e);
  expect(refused).toMatchObject({ code: 1 });
  expect(JSON.parse((refused as { stderr: string }).stderr)).toEqual({ error: REFUSED });
});

test('a token too short to guard the listener stops Auth from starting', () => {
  let thrown: unknown;
  try {
    loadConfig(authConfigSpec, { AUTH_ADMIN_TOKEN: 'short' });
  } catch (err) {
    thrown = err;
  }
  expect(thrown).toBeInstanceOf(ConfigError);
  expect((thrown as ConfigError).problems.join('\n')).toMatch(/AUTH_ADMIN_TOKEN.*at least 32 printable ASCII characters/);
});
