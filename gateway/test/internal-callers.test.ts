// Every internal RPC names its caller (issue 39, item 5): a call without the credential is refused
// (Unauthenticated), a service with no business on a method is refused (PermissionDenied), the
// service that needs it is answered. Loopback only: the test stack's services, called directly.
import { jest } from '@jest/globals';
import { Code, ConnectError, type Interceptor } from '@connectrpc/connect';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { AuthService } from '@media/proto/media/auth/v1/auth_pb.js';
import { BillingService } from '@media/proto/media/billing/v1/billing_pb.js';
import { StorageService } from '@media/proto/media/storage/v1/storage_pb.js';
import { Health, HealthCheckResponse_ServingStatus } from '@media/proto/grpc/health/v1/health_pb.js';
import { createServiceClient, type CallerIdentity } from '@media/platform';
import { startTestStack, type TestStack } from '@media/stack/testing';
import { createClients } from '../src/clients.js';
import { build } from '../src/index.js';
import { caller, PNG, replicaConfig } from './helpers.js';

jest.setTimeout(60_000);

let stack: TestStack;
let accountId: string;
let api: ReturnType<typeof caller>;

beforeAll(async () => {
  stack = await startTestStack();
  const account = await stack.newAccount();
  accountId = account.accountId;
  api = caller(stack, account.authorization);
});
afterAll(() => stack?.close());

/**
 * A client of `service` on the stack sending `as`'s credential (its name and token, or a name and
 * any token), or none. Raw headers rather than stack.callAs: callAs turns refusals into Internal.
 */
function clientOf<S extends typeof AuthService | typeof StorageService | typeof BillingService>(
  service: S,
  url: string,
  as?: CallerIdentity | { identity: CallerIdentity; token: string },
) {
  const credential = typeof as === 'string' ? { identity: as, token: stack.internalToken(as) } : as;
  const send: Interceptor = (next) => async (req) => {
    if (credential) {
      req.header.set('x-media-caller', credential.identity);
      req.header.set('x-media-caller-token', credential.token);
    }
    return next(req);
  };
  return createServiceClient(service, url, { breaker: false, interceptors: [send] });
}

/** The Connect code `call` fails with, or 'OK'. */
async function codeOf(call: () => Promise<unknown>): Promise<string> {
  try {
    await call();
    return 'OK';
  } catch (err) {
    return Code[ConnectError.from(err).code]!;
  }
}

test("Auth's GetWebhookSecret: only Jobs gets an account's secret", async () => {
  const secretOf = async (as?: Parameters<typeof clientOf>[2]) => {
    const auth = clientOf(AuthService, stack.urls.auth, as);
    try {
      return await codeOf(() => auth.client.getWebhookSecret({ accountId }));
    } finally {
      auth.close();
    }
  };
  expect(await secretOf()).toBe('Unauthenticated');
  // A name without its token, or another caller's token under Jobs' name.
  expect(await secretOf({ identity: 'jobs', token: 'x'.repeat(64) })).toBe('Unauthenticated');
  expect(await secretOf({ identity: 'jobs', token: stack.internalToken('gateway') })).toBe('Unauthenticated');
  expect(await secretOf('gateway')).toBe('PermissionDenied');
  expect(await secretOf('probe')).toBe('PermissionDenied');
  expect(await secretOf('console')).toBe('PermissionDenied');
  const auth = clientOf(AuthService, stack.urls.auth, 'jobs');
  try {
    expect((await auth.client.getWebhookSecret({ accountId })).secret).toMatch(/^whsec_/);
  } finally {
    auth.close();
  }
});

test("Storage's ReadFile: the file's bytes only to the services that stage inputs", async () => {
  const dirId = (await api('POST', '/directory')).body.directory.id as string;
  const registered = await api('POST', '/file', { file_name: 'in.png', dir_id: dirId });
  expect((await fetch(registered.body.upload.url, { method: 'PUT', headers: registered.body.upload.headers, body: PNG })).status).toBe(200);
  const read = async (as?: CallerIdentity) => {
    const storage = clientOf(StorageService, stack.urls.storage, as);
    try {
      const chunks: Buffer[] = [];
      const code = await codeOf(async () => {
        for await (const m of storage.client.readFile({ file: { accountId, dirId, fileName: 'in.png' } }))
          chunks.push(Buffer.from(m.chunk));
      });
      return { code, bytes: Buffer.concat(chunks) };
    } finally {
      storage.close();
    }
  };
  expect(await read()).toEqual({ code: 'Unauthenticated', bytes: Buffer.alloc(0) });
  expect(await read('gateway')).toEqual({ code: 'PermissionDenied', bytes: Buffer.alloc(0) });
  expect(await read('console')).toEqual({ code: 'PermissionDenied', bytes: Buffer.alloc(0) });
  expect(await read('jobs')).toEqual({ code: 'OK', bytes: PNG });
  expect(await read('probe')).toEqual({ code: 'OK', bytes: PNG });
  // A delete is the user's, through the gateway or the console: never Jobs'.
  const remove = async (as?: CallerIdentity) => {
    const storage = clientOf(StorageService, stack.urls.storage, as);
    try {
      return await codeOf(() => storage.client.deleteFile({ file: { accountId, dirId, fileName: 'in.png' } }));
    } finally {
      storage.close();
    }
  };
  expect(await remove()).toBe('Unauthenticated');
  expect(await remove('jobs')).toBe('PermissionDenied');
  expect((await api('GET', `/file/${dirId}/in.png`)).status).toBe(200);
});

test("Billing's usage rows: the gateway and the console read them, Jobs and Probe do not", async () => {
  const day = { from: timestampFromDate(new Date(Date.now() - 86_400_000)), to: timestampFromDate(new Date(Date.now() + 86_400_000)) };
  const list = async (as?: CallerIdentity) => {
    const billing = clientOf(BillingService, stack.urls.billing, as);
    try {
      return await codeOf(() => billing.client.listUsage({ accountId, ...day, limit: 10 }));
    } finally {
      billing.close();
    }
  };
  expect(await list()).toBe('Unauthenticated');
  expect(await list('jobs')).toBe('PermissionDenied');
  expect(await list('probe')).toBe('PermissionDenied');
  expect(await list('gateway')).toBe('OK');
  expect(await list('console')).toBe('OK');
});

test('grpc.health.v1 answers without a credential (kubelet probes)', async () => {
  const health = createServiceClient(Health, stack.urls.storage, { breaker: false });
  try {
    expect((await health.client.check({ service: '' })).status).toBe(HealthCheckResponse_ServingStatus.SERVING);
  } finally {
    health.close();
  }
});

test("a gateway with a wrong INTERNAL_TOKEN answers 500 (the deployment's fault), not the services' refusal", async () => {
  const config = replicaConfig(stack, { INTERNAL_TOKEN: 'y'.repeat(64) });
  const clients = createClients(config);
  const app = await build({ config, clients, bus: stack.bus });
  try {
    const { authorization } = await stack.newKey(accountId);
    const res = await app.inject({ method: 'GET', url: '/account', headers: { authorization } });
    expect({ status: res.statusCode, body: res.json() }).toEqual({ status: 500, body: { ok: false, error: expect.any(String) } });
    expect(res.json().error).not.toMatch(/INTERNAL_TOKEN|credential/);
  } finally {
    await app.close();
    clients.close();
  }
});
