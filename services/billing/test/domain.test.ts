// Pure rules of Billing: which events make rows, the cursor's opacity and binding, exact sums.
import { create } from '@bufbuild/protobuf';
import { UsageChargedSchema } from '@media/proto/media/events/v1/events_pb.js';
import { JobKind } from '@media/proto/media/jobs/v1/jobs_pb.js';
import { DomainError } from '@media/platform';
import { rowFromCharge } from '../src/domain/charge.js';
import { CURSOR_INVALID, CURSOR_OTHER_QUERY, decodeCursor, encodeCursor, type UsageQuery } from '../src/domain/cursor.js';
import { utcMonth } from '../src/domain/month.js';
import { fromNanos, nanosOf } from '../src/domain/sum.js';

/** The exact sum as GET /account adds it: in billionths, divided once. */
const sumNanos = (values: Iterable<number>): number => fromNanos(nanosOf(values));
import { chargeEvent } from './helpers.js';

const at = new Date('2026-05-14T10:11:12.345Z');
const event = (over: Partial<Parameters<typeof chargeEvent>[0]> = {}) =>
  create(
    UsageChargedSchema,
    chargeEvent({ requestId: 'job_a1', accountId: 'acc_1', keyId: 'key_1', completedAt: at, gbSec: 0.5, amountUsd: 0.00666, ...over }),
  );

describe('rowFromCharge', () => {
  test('keeps the event numbers as they are, with the kind', () => {
    expect(rowFromCharge(event({ kind: JobKind.PROBE }))).toEqual({
      row: { requestId: 'job_a1', accountId: 'acc_1', keyId: 'key_1', completedAt: at, gbSec: 0.5, amountUsd: 0.00666, kind: 'probe' },
    });
    expect(rowFromCharge(event({ kind: JobKind.ASYNC }))).toMatchObject({ row: { kind: 'async' } });
    expect(rowFromCharge(event({ gbSec: 0, amountUsd: 0 }))).toMatchObject({ row: { gbSec: 0, amountUsd: 0 } });
  });

  test.each([
    ['no request_id', { requestId: '' }],
    ['no account_id', { accountId: '' }],
    ['no key_id', { keyId: '' }],
    ['gb_sec is not a non-negative number (-1)', { gbSec: -1 }],
    ['gb_sec is not a non-negative number (NaN)', { gbSec: Number.NaN }],
    ['amount_usd is not a non-negative number (Infinity)', { amountUsd: Number.POSITIVE_INFINITY }],
  ])('refuses an event with %s', (problem, over) => {
    expect(rowFromCharge(event(over))).toEqual({ problem });
  });

  test('refuses an event without completed_at or usage', () => {
    const e = event();
    e.completedAt = undefined;
    expect(rowFromCharge(e)).toEqual({ problem: 'no valid completed_at' });
    const f = event();
    f.usage = undefined;
    expect(rowFromCharge(f)).toEqual({ problem: 'gb_sec is not a non-negative number (undefined)' });
  });
});

describe('cursor', () => {
  const q: UsageQuery = { accountId: 'acc_1', from: new Date('2026-05-01T00:00:00Z'), to: new Date('2026-06-01T00:00:00Z') };
  const pos = { completedAt: at, requestId: 'job_a1' };

  test('round-trips a position and is URL-safe text', () => {
    const c = encodeCursor(q, pos);
    expect(c).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeCursor(q, c)).toEqual(pos);
  });

  test('is bound to its query: account, range and key filter', () => {
    const c = encodeCursor(q, pos);
    const other = (over: Partial<UsageQuery>) => () => decodeCursor({ ...q, ...over }, c);
    for (const change of [
      { accountId: 'acc_2' },
      { from: new Date('2026-05-02T00:00:00Z') },
      { to: new Date('2026-07-01T00:00:00Z') },
      { keyId: 'key_1' },
    ]) {
      expect(other(change)).toThrow(new DomainError('bad_request', CURSOR_OTHER_QUERY));
    }
  });

  test.each([
    '',
    'abc',
    '!!!',
    Buffer.from('[1,"x","job_a","f"]').toString('base64url'),
    Buffer.from('{"a":1}').toString('base64url'),
    'x'.repeat(1001),
  ])('refuses a malformed cursor %#', (c) => {
    expect(() => decodeCursor(q, c)).toThrow(new DomainError('bad_request', CURSOR_INVALID));
  });
});

describe('sumNanos', () => {
  test('is exact where float addition is not', () => {
    expect(0.1 + 0.2).not.toBe(0.3);
    expect(sumNanos([0.1, 0.2])).toBe(0.3);
    expect(sumNanos(Array(1000).fill(0.000000001))).toBe(0.000001);
    expect(sumNanos([])).toBe(0);
  });

  test('does not depend on the order of the values', () => {
    const values = Array.from({ length: 500 }, (_, i) => Number((((i * 7919) % 1000) / 997).toFixed(9)));
    expect(sumNanos(values)).toBe(sumNanos([...values].reverse()));
  });

  test('stays exact beyond 2^53 billionths', () => {
    // biome-ignore lint/correctness/noPrecisionLoss: doubles as a client's JSON gives them, rounding included
    expect(sumNanos([9_000_000.123456789, 9_000_000.000000001])).toBe(18_000_000.12345679);
  });
});

test('utcMonth: bounds, year_month and resets_on, also across a year end', () => {
  expect(utcMonth(new Date('2026-12-31T23:59:59.999Z'))).toEqual({
    start: new Date('2026-12-01T00:00:00.000Z'),
    end: new Date('2027-01-01T00:00:00.000Z'),
    yearMonth: '2026-12',
    resetsOn: '2027-01-01',
  });
});
