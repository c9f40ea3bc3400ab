// The caller check of every internal listener: the access table covers every RPC, refusals are
// logged with the caller and the method, and a service facing a network will not start open.
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { Code, ConnectError } from '@connectrpc/connect';
import { AuthService } from '@media/proto/media/auth/v1/auth_pb.js';
import { BillingService } from '@media/proto/media/billing/v1/billing_pb.js';
import { JobsService } from '@media/proto/media/jobs/v1/jobs_pb.js';
import { ProbeService } from '@media/proto/media/probe/v1/probe_pb.js';
import { StorageService } from '@media/proto/media/storage/v1/storage_pb.js';
import { ServerReflection } from '@media/proto/grpc/reflection/v1/reflection_pb.js';
import {
  CALLER_IDENTITIES,
  ConfigError,
  createServiceClient,
  generateInternalCredentials,
  INTERNAL_ACCESS,
  internalCallerCheck,
  internalCallerInterceptors,
  loadConfig,
  commonConfig,
  startConnectServer,
} from '../src/index.js';

test('the access table names the callers of every RPC of every service, and no other method', () => {
  const services = [AuthService, StorageService, JobsService, ProbeService, BillingService, ServerReflection];
  const fromProto = Object.fromEntries(services.map((s) => [s.typeName, s.methods.map((m) => m.name).sort()]));
  const fromTable = Object.fromEntries(Object.entries(INTERNAL_ACCESS).map(([s, methods]) => [s, Object.keys(methods).sort()]));
  expect(fromTable).toEqual(fromProto);
  for (const methods of Object.values(INTERNAL_ACCESS))
    for (const callers of Object.values(methods)) for (const c of callers) expect(CALLER_IDENTITIES).toContain(c);
});

test('a service on a non-loopback address without INTERNAL_CALLERS refuses to start; on loopback it runs open', () => {
  expect(() => internalCallerCheck('storage', { SERVICE_HOST: '0.0.0.0' })).toThrow(ConfigError);
  expect(() => internalCallerCheck('storage', { SERVICE_HOST: '::' })).toThrow(/INTERNAL_CALLERS is required when SERVICE_HOST \(::\)/);
  expect(() => internalCallerCheck('storage', { SERVICE_HOST: '127.0.0.1' })).not.toThrow();
  const { callers } = generateInternalCredentials();
  expect(() => internalCallerCheck('storage', { SERVICE_HOST: '0.0.0.0', INTERNAL_CALLERS: callers })).not.toThrow();
});

test('INTERNAL_CALLERS is checked with the rest of the settings', () => {
  expect(() => loadConfig(commonConfig, { INTERNAL_CALLERS: 'gateway:abc' })).toThrow(/INTERNAL_CALLERS .*not 64 hex digits/);
  expect(() => loadConfig(commonConfig, { INTERNAL_CALLERS: `intruder:${'a'.repeat(64)}` })).toThrow(/unknown caller "intruder"/);
  expect(loadConfig(commonConfig, { INTERNAL_CALLERS: `jobs:${'a'.repeat(64)}` }).INTERNAL_CALLERS).toBe(`jobs:${'a'.repeat(64)}`);
});

test('a refused call is logged with its caller and method; an allowed one is served', async () => {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk, _enc, cb) {
      lines.push(JSON.parse(String(chunk)));
      cb();
    },
  });
  const logger = pino(sink);
  const credentials = generateInternalCredentials();
  const server = await startConnectServer({
    name: 'billing',
    logger,
    host: '127.0.0.1',
    port: 0,
    health: { services: [BillingService.typeName] },
    routes: (router) => router.service(BillingService, { getQuota: async () => ({}) }),
    interceptors: internalCallerCheck('billing', { SERVICE_HOST: '127.0.0.1', INTERNAL_CALLERS: credentials.callers })(logger),
  });
  const as = (identity?: (typeof CALLER_IDENTITIES)[number]) =>
    createServiceClient(BillingService, server.url, {
      breaker: false,
      interceptors: [
        (next) => async (req) => {
          if (identity) req.header.set('x-media-caller', identity);
          if (identity) req.header.set('x-media-caller-token', credentials.tokens[identity]);
          return next(req);
        },
      ],
    });
  const clients = [as(), as('probe'), as('gateway')];
  // The services' own clients: a refusal is an internal error to whoever they answer.
  const probe = createServiceClient(BillingService, server.url, {
    breaker: false,
    interceptors: internalCallerInterceptors('probe', credentials.tokens.probe),
  });
  clients.push(probe);
  const codeOf = (p: Promise<unknown>) =>
    p.then(
      () => 'OK',
      (err) => Code[ConnectError.from(err).code],
    );
  try {
    expect(await codeOf(clients[0]!.client.getQuota({ accountId: 'acc_x' }))).toBe('Unauthenticated');
    expect(await codeOf(clients[1]!.client.getQuota({ accountId: 'acc_x' }))).toBe('PermissionDenied');
    expect(await codeOf(clients[2]!.client.getQuota({ accountId: 'acc_x' }))).toBe('OK');
    await expect(probe.client.getQuota({ accountId: 'acc_x' })).rejects.toMatchObject({
      code: Code.Internal,
      rawMessage: 'Internal error. Retry the request.',
    });
    const refusals = lines.filter((l) => String(l.msg).startsWith('internal call refused'));
    expect(refusals.map((l) => [l.caller, l.rpc])).toEqual([
      [undefined, 'media.billing.v1.BillingService/GetQuota'],
      ['probe', 'media.billing.v1.BillingService/GetQuota'],
      ['probe', 'media.billing.v1.BillingService/GetQuota'],
    ]);
    // The token is never logged.
    expect(JSON.stringify(lines)).not.toContain(credentials.tokens.probe);
  } finally {
    for (const c of clients) c.close();
    await server.close();
  }
});
