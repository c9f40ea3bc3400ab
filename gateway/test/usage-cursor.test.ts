// The JSON cursor under load, end to end: 1,200 rows stored through Billing's own ingestion path
// (charge events on the bus), walked with limit=7 through GET /account/usage while new charges
// keep arriving. Each row comes exactly once, in order, and the new rows come at the end.
import { JobKind } from '@media/proto/media/jobs/v1/jobs_pb.js';
import { Events, newId, publishEvent, toTimestamp } from '@media/platform';
import { startTestStack, type TestStack } from '@media/stack/testing';
import { sleep } from './helpers.js';

let stack: TestStack;
let who: { accountId: string; keyId: string; authorization: string };

beforeAll(async () => {
  // ~175 pages from one key: lift the per-key rate limit for this suite only.
  stack = await startTestStack({ RATE_LIMIT_PER_MINUTE: '100000' });
  who = await stack.newAccount();
}, 60_000);
afterAll(() => stack?.close());

const SEEDED = 1200;
const LIMIT = 7;
/** 3 new charges after every 25th page up to this page, and all of them stored before WAIT_PAGE. */
const ADD_UNTIL = 150;
const WAIT_PAGE = 160;

async function charge(at: Date, requestId = newId('job_')): Promise<string> {
  const usage = { timeSec: 0.5, inputSizeGb: 0.001, outputSizeGb: 0.001, gbSec: 0.001 };
  const completedAt = toTimestamp(at);
  await publishEvent(
    stack.bus,
    Events.usageCharged,
    { requestId, accountId: who.accountId, keyId: who.keyId, completedAt, usage, amountUsd: 0.00001332, kind: JobKind.ASYNC },
    `charge:${requestId}`,
  );
  return requestId;
}

async function page(range: string, cursor?: string) {
  const url = `/account/usage?format=json&limit=${LIMIT}&${range}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
  const res = await stack.gateway.app.inject({ method: 'GET', url, headers: { authorization: who.authorization } });
  expect(res.statusCode).toBe(200);
  return res.json() as { rows: { request_id: string; completed_at: string }[]; next_cursor: string | null };
}

async function count(range: string): Promise<number> {
  const res = await stack.gateway.app.inject({
    method: 'GET',
    url: `/account/usage?format=json&limit=10000&${range}`,
    headers: { authorization: who.authorization },
  });
  return (res.json() as { rows: unknown[] }).rows.length;
}

async function waitCount(range: string, n: number): Promise<void> {
  // Billing stores charge events one after another: on a busy CI machine, about 50 a second.
  const deadline = Date.now() + 60_000;
  while ((await count(range)) < n) {
    if (Date.now() > deadline) throw new Error(`fewer than ${n} rows after 60 s`);
    await sleep(50);
  }
}

test(`a walk over ${SEEDED} rows with limit=${LIMIT} while rows are added yields each row exactly once`, async () => {
  // Seeded rows completed in the last hour, several per millisecond (ties go by request_id).
  const base = Date.now() - 3_600_000;
  const seeded: { id: string; at: number }[] = [];
  // Published 100 at a time: one acknowledged publish after another is most of the run on NATS.
  for (let i = 0; i < SEEDED; i += 100) {
    const ats = Array.from({ length: Math.min(100, SEEDED - i) }, (_, j) => base + Math.floor((i + j) / 3) * 1000);
    const ids = await Promise.all(ats.map((at) => charge(new Date(at))));
    seeded.push(...ats.map((at, j) => ({ id: ids[j]!, at })));
  }
  const range = `from=${new Date(base).toISOString()}&to=${new Date(Date.now() + 86_400_000).toISOString()}`;
  await waitCount(range, SEEDED);
  const expectedSeeded = seeded.sort((a, b) => a.at - b.at || (a.id < b.id ? -1 : 1)).map((s) => s.id);

  const walked: string[] = [];
  const added: string[] = [];
  let last: [string, string] | undefined;
  let cursor: string | undefined;
  let pages = 0;
  do {
    const p = await page(range, cursor);
    pages++;
    expect(p.rows.length).toBeLessThanOrEqual(LIMIT);
    for (const r of p.rows) {
      // Strictly increasing (completed_at, request_id): no repeat, no step back.
      if (last) expect(r.completed_at > last[0] || (r.completed_at === last[0] && r.request_id > last[1])).toBe(true);
      last = [r.completed_at, r.request_id];
      walked.push(r.request_id);
    }
    // New charges land while the walk runs: 3 after every 25th page, without waiting for them.
    if (pages % 25 === 0 && pages <= ADD_UNTIL) for (let i = 0; i < 3; i++) added.push(await charge(new Date()));
    // Before the walk could reach its end, make sure every added row is stored.
    if (pages === WAIT_PAGE) await waitCount(range, SEEDED + added.length);
    cursor = p.next_cursor ?? undefined;
  } while (cursor);

  expect(added).toHaveLength((ADD_UNTIL / 25) * 3);
  expect(new Set(walked).size).toBe(walked.length);
  expect(walked).toHaveLength(SEEDED + added.length);
  expect(walked.slice(0, SEEDED)).toEqual(expectedSeeded);
  // The rows that arrived during the walk come at its end, in their completion order.
  expect(new Set(walked.slice(SEEDED))).toEqual(new Set(added));
  expect(pages).toBe(Math.ceil((SEEDED + added.length) / LIMIT));
  // The CSV export of the same range has the same rows in the same order.
  const csv = await stack.gateway.app.inject({
    method: 'GET',
    url: `/account/usage?${range}`,
    headers: { authorization: who.authorization },
  });
  const lines = csv.body.split('\r\n');
  expect(lines[0]).toBe('request_id,completed_at,key_id,gb_sec,amount_usd');
  expect(lines.at(-1)).toBe('');
  expect(lines.slice(1, -1).map((l) => l.split(',')[0])).toEqual(walked);
  expect(lines[1]).toBe(`${walked[0]},${new Date(base).toISOString()},${who.keyId},0.001,0.00001332`);
}, 120_000);
