// ListUsage: export order, keyset pages (ties included), filters and every refusal.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { MessageInitShape } from '@bufbuild/protobuf';
import { BillingService, type ListUsageRequest, type ListUsageRequestSchema } from '@media/proto/media/billing/v1/billing_pb.js';
import { InProcessEventBus, type EventBus } from '@media/eventbus';
import { createServiceClient, loadConfig, newId, toTimestamp, type RunningService, type ServiceClient } from '@media/platform';
import { CURSOR_INVALID, CURSOR_OTHER_QUERY } from '../src/domain/cursor.js';
import { billingConfigSpec, startBilling } from '../src/index.js';
import { chargeEvent, exportOrder, publishCharge, waitFor, type Charge } from './helpers.js';

let dataDir: string;
let bus: EventBus;
let billing: RunningService;
let rpc: ServiceClient<typeof BillingService>;

const accountId = newId('acc_');
const keyA = newId('key_');
const keyB = newId('key_');
const base = Date.parse('2026-04-10T08:00:00.000Z');
const charges: Charge[] = [];
const FROM = toTimestamp(new Date('2026-04-01T00:00:00Z'));
const TO = toTimestamp(new Date('2026-05-01T00:00:00Z'));

type Req = Omit<MessageInitShape<typeof ListUsageRequestSchema>, '$typeName'>;
const list = (req: Req = {}) => rpc.client.listUsage({ accountId, from: FROM, to: TO, limit: 0, ...req } as ListUsageRequest);
const ids = (rows: { requestId: string }[]) => rows.map((r) => r.requestId);

/** Every row of a query, page by page; fails on a repeated row. */
async function walk(req: Req, limit: number): Promise<{ rows: string[]; pages: number }> {
  const rows: string[] = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    const page = await list({ ...req, limit, cursor });
    pages++;
    expect(page.rows.length).toBeLessThanOrEqual(limit);
    rows.push(...ids(page.rows));
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  expect(new Set(rows).size).toBe(rows.length);
  return { rows, pages };
}

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'billing-list-'));
  bus = new InProcessEventBus();
  billing = await startBilling(loadConfig(billingConfigSpec, { DATA_DIR: dataDir, LOG_LEVEL: 'silent', BILLING_PORT: '0' }), { bus });
  rpc = createServiceClient(BillingService, billing.url);
  // 60 rows, three per millisecond (ties broken by request_id), alternating keys, published out of
  // order; plus another account's rows and rows just outside April.
  for (let i = 0; i < 60; i++) {
    charges.push(
      chargeEvent({
        accountId,
        keyId: i % 2 ? keyB : keyA,
        completedAt: new Date(base + Math.floor(i / 3)),
        gbSec: i + 0.5,
        amountUsd: (i + 0.5) * 0.01332,
      }),
    );
  }
  const others = [
    chargeEvent({ accountId: newId('acc_'), keyId: keyA, completedAt: new Date(base), gbSec: 1, amountUsd: 1 }),
    chargeEvent({ accountId, keyId: keyA, completedAt: new Date('2026-03-31T23:59:59.999Z'), gbSec: 1, amountUsd: 1 }),
    chargeEvent({ accountId, keyId: keyA, completedAt: new Date('2026-05-01T00:00:00.000Z'), gbSec: 1, amountUsd: 1 }),
  ];
  for (const c of [...charges].reverse().concat(others)) await publishCharge(bus, c);
  await waitFor(
    async () =>
      (await list({ from: toTimestamp(new Date(0)), to: toTimestamp(new Date('2100-01-01')) })).rows.length === 62 ? true : undefined,
    'ingestion',
  );
});
afterAll(async () => {
  rpc?.close();
  await billing?.close();
  await bus?.close();
  await rm(dataDir, { recursive: true, force: true });
});

const expectedOrder = exportOrder;

test('limit 0 returns every row of the range in completed_at, request_id order, and no cursor', async () => {
  const res = await list();
  expect(ids(res.rows)).toEqual(expectedOrder(charges));
  expect(res.nextCursor).toBeUndefined();
  expect(res.rows[0]).toMatchObject({ accountId, keyId: charges.find((c) => c.requestId === res.rows[0]!.requestId)!.keyId });
});

test.each([1, 2, 3, 4, 7, 59, 60, 61, 10000])('pages of %i give each row once, in order, across same-millisecond ties', async (limit) => {
  const { rows, pages } = await walk({}, limit);
  expect(rows).toEqual(expectedOrder(charges));
  expect(pages).toBe(Math.max(1, Math.ceil(60 / limit)));
});

test('a full last page says there is no next page (no empty trailing page)', async () => {
  const page = await list({ limit: 60 });
  expect(page.rows).toHaveLength(60);
  expect(page.nextCursor).toBeUndefined();
});

test('key_id filter, and its cursor walk', async () => {
  const ofB = charges.filter((c) => c.keyId === keyB);
  expect(ids((await list({ keyId: keyB })).rows)).toEqual(expectedOrder(ofB));
  expect((await walk({ keyId: keyB }, 4)).rows).toEqual(expectedOrder(ofB));
  expect((await list({ keyId: newId('key_') })).rows).toEqual([]);
});

test('range bounds: from inclusive, to exclusive', async () => {
  const at = (ms: number) => toTimestamp(new Date(ms));
  const res = await list({ from: at(base + 1), to: at(base + 3) });
  expect(ids(res.rows)).toEqual(expectedOrder(charges.slice(3, 9)));
});

test('another account sees nothing of these rows', async () => {
  expect((await list({ accountId: newId('acc_') })).rows).toEqual([]);
});

test('refusals', async () => {
  const first = await list({ limit: 5 });
  const cursor = first.nextCursor!;
  await expect(list({ limit: 5, cursor: 'nope' })).rejects.toMatchObject({ rawMessage: CURSOR_INVALID });
  await expect(list({ limit: 5, cursor: '' })).rejects.toMatchObject({ rawMessage: CURSOR_INVALID });
  await expect(list({ limit: 5, cursor, keyId: keyA })).rejects.toMatchObject({ rawMessage: CURSOR_OTHER_QUERY });
  await expect(list({ limit: 5, cursor, accountId: newId('acc_') })).rejects.toMatchObject({ rawMessage: CURSOR_OTHER_QUERY });
  await expect(list({ limit: 10001 })).rejects.toMatchObject({ rawMessage: 'limit must be an integer from 1 to 10000 (0 for every row)' });
  await expect(list({ limit: -1 })).rejects.toMatchObject({ rawMessage: 'limit must be an integer from 1 to 10000 (0 for every row)' });
  await expect(list({ from: TO, to: FROM })).rejects.toMatchObject({ rawMessage: 'from must be before to' });
  await expect(list({ from: TO, to: TO })).rejects.toMatchObject({ rawMessage: 'from must be before to' });
  await expect(list({ from: undefined })).rejects.toMatchObject({ rawMessage: 'from and to are required' });
  await expect(list({ accountId: '' })).rejects.toMatchObject({ rawMessage: 'account_id is required' });
  // The same cursor with the same query keeps working (cursors are stateless).
  expect((await list({ limit: 5, cursor })).rows).toHaveLength(5);
});
