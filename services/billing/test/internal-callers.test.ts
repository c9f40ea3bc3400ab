// A service run alone takes its callers' hashes from INTERNAL_CALLERS, and will not start open on
// an address other processes can reach (docs/operations/internal-calls.md).
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Code, ConnectError } from '@connectrpc/connect';
import { BillingService } from '@media/proto/media/billing/v1/billing_pb.js';
import { InProcessEventBus } from '@media/eventbus';
import { ConfigError, createServiceClient, generateInternalCredentials, loadConfig, toTimestamp } from '@media/platform';
import { billingConfigSpec, startBilling } from '../src/index.js';

let dataDir: string;
beforeEach(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'billing-callers-'));
});
afterEach(() => rm(dataDir, { recursive: true, force: true }));

const env = (more: Record<string, string>) => ({ DATA_DIR: dataDir, LOG_LEVEL: 'silent', BILLING_PORT: '0', ...more });

test('with INTERNAL_CALLERS set, ListUsage answers the gateway and refuses a call without its credential', async () => {
  const { tokens, callers } = generateInternalCredentials();
  const billing = await startBilling(loadConfig(billingConfigSpec, env({ INTERNAL_CALLERS: callers })), { bus: new InProcessEventBus() });
  const call = async (headers: Record<string, string>) => {
    const rpc = createServiceClient(BillingService, billing.url, {
      breaker: false,
      interceptors: [
        (next) => async (req) => {
          for (const [k, v] of Object.entries(headers)) req.header.set(k, v);
          return next(req);
        },
      ],
    });
    try {
      const res = await rpc.client.listUsage({ accountId: 'acc_x', from: toTimestamp(new Date(0)), to: toTimestamp(new Date()), limit: 1 });
      return { code: 'OK', rows: res.rows.length };
    } catch (err) {
      return { code: Code[ConnectError.from(err).code], message: ConnectError.from(err).rawMessage };
    } finally {
      rpc.close();
    }
  };
  try {
    expect(await call({})).toEqual({
      code: 'Unauthenticated',
      message:
        "media.billing.v1.BillingService/ListUsage needs the calling service's credential: give the caller its INTERNAL_TOKEN and this service the matching INTERNAL_CALLERS entry.",
    });
    expect(await call({ 'x-media-caller': 'jobs', 'x-media-caller-token': tokens.jobs })).toEqual({
      code: 'PermissionDenied',
      message:
        'The jobs service may not call media.billing.v1.BillingService/ListUsage: only the services listed for it in packages/platform/src/internal-access.ts may.',
    });
    expect(await call({ 'x-media-caller': 'gateway', 'x-media-caller-token': tokens.gateway })).toEqual({ code: 'OK', rows: 0 });
  } finally {
    await billing.close();
  }
});

test('without INTERNAL_CALLERS, a service on a non-loopback address refuses to start, before it opens anything', async () => {
  const start = startBilling(loadConfig(billingConfigSpec, env({ SERVICE_HOST: '0.0.0.0' })), { bus: new InProcessEventBus() });
  await expect(start).rejects.toThrow(ConfigError);
  await expect(start).rejects.toThrow(/INTERNAL_CALLERS is required when SERVICE_HOST \(0\.0\.0\.0\) is not a loopback address/);
  // No database was opened under DATA_DIR.
  expect(await readdir(dataDir)).toEqual([]);
});
