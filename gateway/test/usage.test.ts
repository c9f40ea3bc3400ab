// GET /account/usage and the quota of GET /account as a user sees them. A sync task, an async job
// and a probe run for real; the exact cases (duplicates, boundaries, byte-exact CSV) publish
// UsageCharged events with kind ASYNC / PROBE on the stack's bus, as Jobs and Probe do.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { JobKind } from '@media/proto/media/jobs/v1/jobs_pb.js';
import { Events, newId, plainNumber, publishEvent, toTimestamp } from '@media/platform';
import { startTestStack, type TestStack } from '@media/stack/testing';
import { caller, ISO_MS, sleep } from './helpers.js';
import { makeMp4 } from './media-fixtures.js';

let stack: TestStack;
let fixtures: string;
let mp4: Buffer;

interface Who {
  accountId: string;
  keyId: string;
  authorization: string;
}

interface Row {
  request_id: string;
  completed_at: string;
  key_id: string;
  gb_sec: number;
  amount_usd: number;
}

const get = async (who: { authorization: string }, url: string) => {
  const res = await stack.gateway.app.inject({ method: 'GET', url, headers: { authorization: who.authorization } });
  return { status: res.statusCode, headers: res.headers, text: res.body };
};
const getJson = async (who: { authorization: string }, url: string) => {
  const res = await get(who, url);
  return { ...res, body: JSON.parse(res.text) };
};
const usageJson = async (who: Who, query = '') => {
  const res = await getJson(who, `/account/usage?format=json&limit=10000${query ? `&${query}` : ''}`);
  expect(res.status).toBe(200);
  return res.body as { ok: true; from: string; to: string; rows: Row[]; next_cursor: string | null };
};

/** A charge as Jobs (kind SYNC / ASYNC) and Probe (kind PROBE) publish it. */
async function charge(
  who: Who,
  at: Date | string,
  gbSec: number,
  amountUsd: number,
  kind = JobKind.ASYNC,
  requestId = newId('job_'),
  msgId = `charge:${requestId}`,
) {
  const usage = { timeSec: 1, inputSizeGb: gbSec, outputSizeGb: 0, gbSec };
  const completedAt = toTimestamp(typeof at === 'string' ? new Date(at) : at);
  await publishEvent(
    stack.bus,
    Events.usageCharged,
    { requestId, accountId: who.accountId, keyId: who.keyId, completedAt, usage, amountUsd, kind },
    msgId,
  );
  return requestId;
}

/** Rows are stored from events, asynchronously: poll until the query has `n` rows. */
async function waitRows(who: Who, query: string, n: number): Promise<Row[]> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const { rows } = await usageJson(who, query);
    if (rows.length >= n) return rows;
    if (Date.now() > deadline) throw new Error(`expected ${n} rows for "${query}", have ${rows.length}`);
    await sleep(25);
  }
}

/**
 * Billing has handled the charges published before this call: a charge of another account,
 * published after them on the same subject, is stored (instead of a quiet period).
 */
async function billingCaughtUp(): Promise<void> {
  const marker = await stack.newAccount();
  await charge(marker, new Date(), 1, 0.01332, JobKind.SYNC);
  await waitRows(marker, '', 1);
}

beforeAll(async () => {
  fixtures = await mkdtemp(join(tmpdir(), 'usage-fixtures-'));
  mp4 = await makeMp4(fixtures, 'in.mp4', 1, '160x120');
  // Polling for rows and job states may pass 300 requests a minute on a busy machine.
  stack = await startTestStack({ RATE_LIMIT_PER_MINUTE: '100000' });
}, 60_000);
afterAll(async () => {
  await stack?.close();
  await rm(fixtures, { recursive: true, force: true });
});

describe('rows from charges', () => {
  test('a sync task makes exactly one row with its request_id, key_id, gb_sec and amount_usd; a failed task none', async () => {
    const who = await stack.newAccount();
    const api = caller(stack, who.authorization);
    const reg = await api('POST', '/file', { file_name: 'in.mp4' });
    expect((await fetch(reg.body.upload.url, { method: 'PUT', headers: reg.body.upload.headers, body: mp4 })).status).toBe(200);
    const input = [{ file_path: `${reg.body.file.dir_id}/in.mp4` }];
    const started = Date.now();
    const ok1 = await api('POST', '/ffmpeg/process', {
      task: { inputs: input, outputs: [{ file: 'a.png', options: ['-frames:v', '1'] }] },
    });
    expect(ok1.status).toBe(200);
    const failed = await api('POST', '/ffmpeg/process', {
      task: { inputs: input, outputs: [{ file: 'subs.mp4', options: ['-map', '0:s'] }] },
    });
    expect(failed.status).toBe(500);
    const ok2 = await api('POST', '/ffmpeg/process', {
      task: { inputs: input, outputs: [{ file: 'b.png', options: ['-frames:v', '1'] }] },
    });
    expect(ok2.status).toBe(200);
    const rows = await waitRows(who, '', 2);
    await billingCaughtUp(); // a charge of the failed task would have been stored by now
    const again = (await usageJson(who)).rows;
    expect(again).toEqual(rows);
    expect(rows).toEqual(
      [ok1.body, ok2.body].map((b) => ({
        request_id: b.request_id,
        completed_at: expect.stringMatching(ISO_MS),
        key_id: who.keyId,
        gb_sec: b.usage.gb_sec,
        amount_usd: b.amount_usd,
      })),
    );
    for (const r of rows) {
      expect(Date.parse(r.completed_at)).toBeGreaterThanOrEqual(started);
      expect(Date.parse(r.completed_at)).toBeLessThanOrEqual(Date.now());
    }
    // The CSV has the same two rows and nothing else.
    const csv = await get(who, '/account/usage');
    const lines = csv.text.split('\r\n');
    expect(lines).toEqual([
      'request_id,completed_at,key_id,gb_sec,amount_usd',
      ...rows.map((r) => `${r.request_id},${r.completed_at},${r.key_id},${plainNumber(r.gb_sec)},${plainNumber(r.amount_usd)}`),
      '',
    ]);
  });

  test('an async job makes its row when it completes, a failed one none; a probe makes one, a refused probe none (real endpoints)', async () => {
    const who = await stack.newAccount();
    const api = caller(stack, who.authorization);
    const reg = await api('POST', '/file', { file_name: 'in.mp4' });
    expect((await fetch(reg.body.upload.url, { method: 'PUT', headers: reg.body.upload.headers, body: mp4 })).status).toBe(200);
    const filePath = `${reg.body.file.dir_id}/in.mp4`;
    const submit = async (options: string[]) =>
      (
        await api('POST', '/ffmpeg/process/async', {
          task: { inputs: [{ file_path: filePath }], outputs: [{ file: `${newId('o', 6)}.png`, options }] },
        })
      ).body.job_id as string;
    const okId = await submit(['-frames:v', '1']);
    const failedId = await submit(['-map', '0:s']);
    const ended = async (jobId: string) => {
      for (let i = 0; i < 600; i++) {
        // Read rows first, then the status: a row seen before means the job had left "pending".
        const rows = (await usageJson(who)).rows.filter((r) => r.request_id === jobId);
        const job = (await api('GET', `/job/${jobId}`)).body;
        if (rows.length > 0) expect(job.status).not.toBe('pending');
        if (job.status === 'completed' || job.status === 'failed') return job;
        await sleep(50);
      }
      throw new Error(`job ${jobId} did not end`);
    };
    const job = await ended(okId);
    expect(job.status).toBe('completed');
    expect((await ended(failedId)).status).toBe('failed');
    const probe = await api('POST', '/ffprobe/analyze', { file_path: filePath });
    expect(probe.status).toBe(200);
    const refused = await api('POST', '/ffprobe/analyze', { file_path: `${reg.body.file.dir_id}/missing.mp4` });
    expect(refused.status).toBe(404);
    const rows = await waitRows(who, '', 2);
    await billingCaughtUp();
    expect((await usageJson(who)).rows).toEqual(rows);
    expect(rows).toHaveLength(2);
    expect(rows).toEqual(
      expect.arrayContaining([
        {
          request_id: okId,
          completed_at: expect.stringMatching(ISO_MS),
          key_id: who.keyId,
          gb_sec: job.usage.gb_sec,
          amount_usd: job.amount_usd,
        },
        {
          request_id: probe.body.request_id,
          completed_at: expect.stringMatching(ISO_MS),
          key_id: who.keyId,
          gb_sec: probe.body.usage.gb_sec,
          amount_usd: probe.body.amount_usd,
        },
      ]),
    );
  });

  test('async and probe charges make rows; a duplicated charge (same or other msgId, redelivered) makes one', async () => {
    const who = await stack.newAccount();
    const now = Date.now();
    const asyncId = await charge(who, new Date(now - 2), 2.5, 0.0333, JobKind.ASYNC);
    const probeId = await charge(who, new Date(now - 1), 0.000012, 0.00000016, JobKind.PROBE);
    await charge(who, new Date(now - 2), 2.5, 0.0333, JobKind.ASYNC, asyncId); // same msgId: bus dedup
    // Copies that come once the rows are stored (charges are handled concurrently: of two copies
    // in flight at once, either may be the one stored).
    await waitRows(who, '', 2);
    await charge(who, new Date(now - 2), 2.5, 0.0333, JobKind.ASYNC, asyncId, `retry-${asyncId}`); // other msgId: Billing dedup
    await charge(who, new Date(now - 1), 9, 9, JobKind.PROBE, probeId, `retry-${probeId}`); // a conflicting copy: the stored row stays
    const marker = await charge(who, new Date(now), 1, 0.01332, JobKind.SYNC);
    await waitRows(who, '', 3);
    await billingCaughtUp();
    expect((await usageJson(who)).rows).toEqual([
      { request_id: asyncId, completed_at: new Date(now - 2).toISOString(), key_id: who.keyId, gb_sec: 2.5, amount_usd: 0.0333 },
      { request_id: probeId, completed_at: new Date(now - 1).toISOString(), key_id: who.keyId, gb_sec: 0.000012, amount_usd: 0.00000016 },
      { request_id: marker, completed_at: new Date(now).toISOString(), key_id: who.keyId, gb_sec: 1, amount_usd: 0.01332 },
    ]);
  });
});

describe('export formats and filters', () => {
  let who: Who;
  let other: Who; // a second key of the same account
  const rowsByName: Record<string, Row> = {};

  beforeAll(async () => {
    who = await stack.newAccount();
    other = { accountId: who.accountId, ...(await stack.newKey(who.accountId)) };
    const seed: [string, Who, string, number, number][] = [
      ['feb-last', who, '2025-02-28T23:59:59.999Z', 1, 1],
      ['mar-first', who, '2025-03-01T00:00:00.000Z', 0.5, 0.00666],
      ['mar-15', other, '2025-03-15T12:00:00.000Z', 0.00000005, 0.000000001],
      ['mar-15b', who, '2025-03-15T12:00:00.000Z', 123.456789012, 1.644444431],
      ['mar-last', other, '2025-03-31T23:59:59.999Z', 10, 0.1332],
      ['apr-first', who, '2025-04-01T00:00:00.000Z', 2, 2],
    ];
    for (const [name, key, at, gbSec, usd] of seed) {
      const id = await charge(
        key,
        at,
        gbSec,
        usd,
        name === 'mar-15' ? JobKind.PROBE : JobKind.ASYNC,
        `job_${name.replace('-', '')}${newId('', 8)}`,
      );
      rowsByName[name] = { request_id: id, completed_at: at, key_id: key.keyId, gb_sec: gbSec, amount_usd: usd };
    }
    await waitRows(who, 'from=2025-02-01&to=2025-04-30', 6);
  });
  const pick = (...names: string[]) => names.map((n) => rowsByName[n]!);
  /** Same-millisecond rows come in request_id order. */
  const march = () => {
    const [a, b] = [rowsByName['mar-15']!, rowsByName['mar-15b']!].sort((x, y) => (x.request_id < y.request_id ? -1 : 1));
    return [rowsByName['mar-first']!, a!, b!, rowsByName['mar-last']!];
  };

  test('CSV is the default, byte-exact: header, CRLF lines in completed_at order, plain numbers', async () => {
    const res = await get(who, '/account/usage?month=2025-03');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.headers['content-disposition']).toBe('attachment; filename="usage.csv"');
    const [first, a, b, last] = march();
    const line = (r: Row, gb: string, usd: string) => `${r.request_id},${r.completed_at},${r.key_id},${gb},${usd}\r\n`;
    const numbers: Record<string, [string, string]> = {
      [rowsByName['mar-15']!.request_id]: ['0.00000005', '0.000000001'],
      [rowsByName['mar-15b']!.request_id]: ['123.456789012', '1.644444431'],
    };
    const expected =
      'request_id,completed_at,key_id,gb_sec,amount_usd\r\n' +
      line(first!, '0.5', '0.00666') +
      line(a!, ...numbers[a!.request_id]!) +
      line(b!, ...numbers[b!.request_id]!) +
      line(last!, '10', '0.1332');
    expect(res.text).toBe(expected);
    expect((await get(who, '/account/usage?month=2025-03&format=csv')).text).toBe(expected);
    // No rows: the header alone.
    expect((await get(who, '/account/usage?month=2024-01')).text).toBe('request_id,completed_at,key_id,gb_sec,amount_usd\r\n');
  });

  test('JSON: {ok, from, to, rows, next_cursor} with the effective range, numbers as numbers', async () => {
    const res = await getJson(who, '/account/usage?month=2025-03&format=json');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body).toEqual({
      ok: true,
      from: '2025-03-01T00:00:00.000Z',
      to: '2025-03-31T23:59:59.999Z',
      rows: march(),
      next_cursor: null,
    });
    for (const r of res.body.rows) {
      expect(Object.keys(r)).toEqual(['request_id', 'completed_at', 'key_id', 'gb_sec', 'amount_usd']);
      expect(typeof r.gb_sec).toBe('number');
      expect(typeof r.amount_usd).toBe('number');
      expect(r.completed_at).toMatch(ISO_MS);
    }
    // Sent back as from/to, the echoed range selects the same rows.
    const echo = await usageJson(who, `from=${res.body.from}&to=${res.body.to}`);
    expect(echo.rows).toEqual(march());
  });

  test('JSON pages: limit and cursor (default limit 1000)', async () => {
    const p1 = await getJson(who, '/account/usage?month=2025-03&format=json&limit=3');
    expect(p1.body.rows).toEqual(march().slice(0, 3));
    expect(typeof p1.body.next_cursor).toBe('string');
    const p2 = await getJson(who, `/account/usage?month=2025-03&format=json&limit=3&cursor=${encodeURIComponent(p1.body.next_cursor)}`);
    expect(p2.body).toMatchObject({ rows: march().slice(3), next_cursor: null });
    const dflt = await getJson(who, '/account/usage?month=2025-03&format=json');
    expect(dflt.body.rows).toHaveLength(4);
  });

  test('month filter: [first instant, first instant of next month)', async () => {
    expect((await usageJson(who, 'month=2025-03')).rows).toEqual(march());
    expect((await usageJson(who, 'month=2025-02')).rows).toEqual(pick('feb-last'));
    expect((await usageJson(who, 'month=2025-04')).rows).toEqual(pick('apr-first'));
  });

  test('from/to dates: from its midnight through the whole "to" day', async () => {
    const r = await usageJson(who, 'from=2025-03-15&to=2025-03-31');
    expect(r).toMatchObject({ from: '2025-03-15T00:00:00.000Z', to: '2025-03-31T23:59:59.999Z' });
    expect(r.rows).toEqual(march().slice(1));
    expect((await usageJson(who, 'from=2025-02-28&to=2025-03-01')).rows).toEqual(pick('feb-last', 'mar-first'));
  });

  test('from/to ISO times: exact instants, both inclusive; offsets, also an unencoded "+"', async () => {
    const exact = await usageJson(who, 'from=2025-03-15T12:00:00.000Z&to=2025-03-15T12:00:00.000Z');
    expect(exact).toMatchObject({ from: '2025-03-15T12:00:00.000Z', to: '2025-03-15T12:00:00.000Z' });
    expect(exact.rows).toEqual(march().slice(1, 3));
    expect((await usageJson(who, 'from=2025-03-15T12:00:00.001Z&to=2025-04-01T00:00:00Z')).rows).toEqual([
      ...march().slice(3),
      ...pick('apr-first'),
    ]);
    expect((await usageJson(who, 'from=2025-03-15T13:00:00+01:00&to=2025-03-31T23:59:59.998Z')).rows).toEqual(march().slice(1, 3));
    expect((await usageJson(who, `from=${encodeURIComponent('2025-03-15T13:00:00+01:00')}&to=2025-03-15T08:00:00-04:00`)).rows).toEqual(
      march().slice(1, 3),
    );
  });

  test("key_id: only that key's rows; any key of the account sees every key's rows; other accounts see none", async () => {
    expect((await usageJson(who, `month=2025-03&key_id=${other.keyId}`)).rows).toEqual(pick('mar-15', 'mar-last'));
    expect((await usageJson(other, `month=2025-03&key_id=${who.keyId}`)).rows).toEqual(march().filter((r) => r.key_id === who.keyId));
    expect((await usageJson(other, 'month=2025-03')).rows).toEqual(march());
    expect((await get(other, '/account/usage?month=2025-03')).text).toBe((await get(who, '/account/usage?month=2025-03')).text);
    const stranger = await stack.newAccount();
    expect((await usageJson(stranger, 'month=2025-03')).rows).toEqual([]);
    expect((await usageJson(stranger, `month=2025-03&key_id=${who.keyId}`)).rows).toEqual([]);
    expect((await get(stranger, '/account/usage?month=2025-03')).text).toBe('request_id,completed_at,key_id,gb_sec,amount_usd\r\n');
    expect((await usageJson(who, `month=2025-03&key_id=key_${'z'.repeat(20)}`)).rows).toEqual([]);
  });

  test('neither month nor from/to: the current UTC month', async () => {
    const fresh = await stack.newAccount();
    const id = await charge(fresh, new Date(), 1, 0.01332);
    await charge(fresh, '2025-03-10T00:00:00.000Z', 1, 0.01332);
    const rows = await waitRows(fresh, '', 1);
    const res = await usageJson(fresh);
    const month = new Date().toISOString().slice(0, 7);
    expect(res.from).toBe(`${month}-01T00:00:00.000Z`);
    expect(res.to.slice(0, 7)).toBe(month);
    expect(rows.map((r) => r.request_id)).toEqual([id]);
  });

  test.each<[string, string]>([
    // The query rules the gateway answers alone: usage-refusals.test.ts (the fast level).
    ['format=json&cursor=abc', 'cursor is not valid: pass the next_cursor of the previous page unchanged'],
    ['format=json&cursor=', 'cursor is not valid: pass the next_cursor of the previous page unchanged'],
  ])('?%s -> 400', async (query, error) => {
    const res = await getJson(who, `/account/usage?${query}`);
    expect({ status: res.status, body: res.body }).toEqual({ status: 400, body: { ok: false, error } });
  });

  test('a cursor sent with other filters -> 400', async () => {
    const p1 = await getJson(who, '/account/usage?month=2025-03&format=json&limit=1');
    const cursor = encodeURIComponent(p1.body.next_cursor);
    // The same range written as from/to is the same query: the cursor goes on.
    const same = await getJson(who, `/account/usage?from=2025-03-01&to=2025-03-31&format=json&limit=1&cursor=${cursor}`);
    expect(same.body.rows).toEqual(march().slice(1, 2));
    for (const query of ['month=2025-04', `month=2025-03&key_id=${who.keyId}`, 'from=2025-03-01&to=2025-03-30']) {
      const res = await getJson(who, `/account/usage?${query}&format=json&limit=1&cursor=${cursor}`);
      expect(res.body).toEqual({
        ok: false,
        error: 'cursor belongs to another query: send the same month, from, to and key_id as the request that returned it',
      });
    }
    // Another account cannot use it either.
    const stranger = await stack.newAccount();
    expect((await getJson(stranger, `/account/usage?month=2025-03&format=json&limit=1&cursor=${cursor}`)).status).toBe(400);
  });
});

test("GET /account: used_gb_sec is the sum of the current month's rows; other months do not count", async () => {
  const who = await stack.newAccount();
  const account = async () => (await getJson(who, '/account')).body;
  const start = await account();
  expect(start.quota).toEqual({
    used_gb_sec: 0,
    limit_gb_sec: null,
    remaining_gb_sec: null,
    year_month: new Date().toISOString().slice(0, 7),
    resets_on: expect.stringMatching(/^\d{4}-\d{2}-01$/),
  });
  expect(start.plan).toBe('pay-as-you-go');
  const now = new Date();
  const nextMonth = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
  expect(start.quota.resets_on).toBe(nextMonth.toISOString().slice(0, 10));
  const amounts = [0.1, 0.2, 0.000000001, 7.123456789, 0.3];
  for (const gb of amounts) await charge(who, new Date(), gb, Number((gb * 0.01332).toFixed(9)));
  await charge(who, new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1) - 1), 1000, 13.32); // last month
  await charge(who, nextMonth, 2000, 26.64); // next month (clock skew of a publisher)
  const rows = await waitRows(who, '', amounts.length);
  const sum = Number(rows.reduce((s, r) => s + r.gb_sec, 0).toFixed(9));
  expect(sum).toBe(7.72345679);
  // Counted once Billing has marked the row's hour, just after storing the row.
  let used = 0;
  for (let i = 0; i < 100 && used < sum; i++) {
    if (i > 0) await new Promise((r) => setTimeout(r, 20));
    used = (await account()).quota.used_gb_sec;
  }
  expect(used).toBe(sum);
});
