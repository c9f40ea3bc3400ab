// The pure parts of GET /account/usage: period rules, the CSV writer's RFC 4180 quoting and the
// plain (never exponent) number form. The route itself is covered in usage.test.ts.
import { create } from '@bufbuild/protobuf';
import { ListUsageResponseSchema } from '@media/proto/media/billing/v1/billing_pb.js';
import { DomainError, toTimestamp } from '@media/platform';
import { csvChunks, csvRecords, plainNumber } from '@media/platform';
import { usagePeriod, USAGE_RULES } from '../src/routes/usage.js';

const now = new Date('2026-11-22T04:49:16.123Z');
const period = (q: { month?: string; from?: string; to?: string }) => {
  const p = usagePeriod(q, now);
  return [p.from.toISOString(), p.to.toISOString()];
};
const refused = (q: { month?: string; from?: string; to?: string }, sentence: string) =>
  expect(() => usagePeriod(q, now)).toThrow(new DomainError('bad_request', sentence));

describe('usagePeriod: [from, to) in UTC', () => {
  test('neither month nor from/to: the current UTC month', () => {
    expect(period({})).toEqual(['2026-11-01T00:00:00.000Z', '2026-12-01T00:00:00.000Z']);
  });

  test('month: the whole UTC month, also December and February of a leap year', () => {
    expect(period({ month: '2026-05' })).toEqual(['2026-05-01T00:00:00.000Z', '2026-06-01T00:00:00.000Z']);
    expect(period({ month: '2026-12' })).toEqual(['2026-12-01T00:00:00.000Z', '2027-01-01T00:00:00.000Z']);
    expect(period({ month: '2028-02' })).toEqual(['2028-02-01T00:00:00.000Z', '2028-03-01T00:00:00.000Z']);
    expect(period({ month: '1970-01' })).toEqual(['1970-01-01T00:00:00.000Z', '1970-02-01T00:00:00.000Z']);
  });

  test('dates: from its first instant, to through the end of its day', () => {
    expect(period({ from: '2026-05-01', to: '2026-05-01' })).toEqual(['2026-05-01T00:00:00.000Z', '2026-05-02T00:00:00.000Z']);
    expect(period({ from: '2024-02-28', to: '2024-02-29' })).toEqual(['2024-02-28T00:00:00.000Z', '2024-03-01T00:00:00.000Z']);
  });

  test('ISO times: exact and inclusive (to + 1 ms is the exclusive bound); offsets; a date and a time mixed', () => {
    expect(period({ from: '2026-05-01T10:00:00Z', to: '2026-05-01T10:00:00Z' })).toEqual([
      '2026-05-01T10:00:00.000Z',
      '2026-05-01T10:00:00.001Z',
    ]);
    expect(period({ from: '2026-05-01T12:00:00.250+02:00', to: '2026-05-01T05:30-05:30' })).toEqual([
      '2026-05-01T10:00:00.250Z',
      '2026-05-01T11:00:00.001Z',
    ]);
    expect(period({ from: '2026-05-01t10:00:00z', to: '2026-05-02' })).toEqual(['2026-05-01T10:00:00.000Z', '2026-05-03T00:00:00.000Z']);
    expect(period({ from: '2026-05-01T10:00:00+0200', to: '2026-05-01T10:00:00+02' })).toEqual([
      '2026-05-01T08:00:00.000Z',
      '2026-05-01T08:00:00.001Z',
    ]);
    expect(period({ from: '2026-05-01T10:00:00,5Z', to: '2026-05-01T10:00:01Z' })).toEqual([
      '2026-05-01T10:00:00.500Z',
      '2026-05-01T10:00:01.001Z',
    ]);
  });

  test('an unencoded "+" of an offset (a space once decoded) is read as "+"', () => {
    expect(period({ from: '2026-05-01T12:00:00 02:00', to: '2026-05-01T12:00:00 02:00' })).toEqual([
      '2026-05-01T10:00:00.000Z',
      '2026-05-01T10:00:00.001Z',
    ]);
  });

  test('digits below the millisecond round inward (from up, to down): rows carry milliseconds', () => {
    expect(period({ from: '2026-05-01T10:00:00.000001Z', to: '2026-05-01T10:00:00.999999Z' })).toEqual([
      '2026-05-01T10:00:00.001Z',
      '2026-05-01T10:00:01.000Z',
    ]);
    expect(period({ from: '2026-05-01T10:00:00.123000Z', to: '2026-05-01T10:00:00.123000Z' })).toEqual([
      '2026-05-01T10:00:00.123Z',
      '2026-05-01T10:00:00.124Z',
    ]);
  });

  test.each(['2026-13', '2026-00', '2026-5', '26-05', '2026-05-01', '1969-12', '', 'may', '2026-05 '])('month %p is refused', (month) => {
    refused({ month }, USAGE_RULES.month);
  });

  test.each([
    '2026-02-30',
    '2026-13-01',
    '2026-05-1',
    '20260501',
    '2026-05-01T10:00:00',
    '2026-05-01T24:00:00Z',
    '2026-05-01T10:60:00Z',
    '2026-05-01T10:00:60Z',
    '2026-05-01T10:00:00+24:00',
    '2026-05-01T10:00:00.Z',
    '1969-12-31',
    'yesterday',
    '',
    '2026-05-01 10:00:00Z',
  ])('from %p is refused (to likewise)', (bad) => {
    refused({ from: bad, to: '2026-05-01' }, USAGE_RULES.from);
    refused({ from: '2026-05-01', to: bad }, USAGE_RULES.to);
  });

  test('combinations', () => {
    refused({ month: '2026-05', from: '2026-05-01', to: '2026-05-02' }, USAGE_RULES.monthWithRange);
    refused({ month: '2026-05', from: '2026-05-01' }, USAGE_RULES.monthWithRange);
    refused({ month: 'bad', to: '2026-05-01' }, USAGE_RULES.monthWithRange);
    refused({ from: '2026-05-01' }, USAGE_RULES.pair);
    refused({ to: '2026-05-01' }, USAGE_RULES.pair);
    refused({ from: '2026-05-02', to: '2026-05-01' }, USAGE_RULES.order);
    refused({ from: '2026-05-01T10:00:00.001Z', to: '2026-05-01T10:00:00Z' }, USAGE_RULES.order);
  });
});

describe('CSV writer', () => {
  test('RFC 4180: CRLF after every record; commas, quotes, CR and LF quoted, quotes doubled', () => {
    expect(csvRecords([['a', 'b,c', 'say "hi"', 'line\nbreak', 'cr\rlf\r\n', ' spaced ', '']])).toBe(
      'a,"b,c","say ""hi""","line\nbreak","cr\rlf\r\n", spaced ,\r\n',
    );
    expect(csvRecords([['x'], ['y']])).toBe('x\r\ny\r\n');
    expect(csvRecords([])).toBe('');
  });

  test('numbers: shortest round-trip digits, never exponent notation', () => {
    expect(plainNumber(0)).toBe('0');
    expect(plainNumber(1.5)).toBe('1.5');
    expect(plainNumber(0.01332)).toBe('0.01332');
    expect(plainNumber(123.456789012)).toBe('123.456789012');
    expect(plainNumber(0.000001)).toBe('0.000001');
    expect(plainNumber(5e-8)).toBe('0.00000005');
    expect(plainNumber(1.23e-7)).toBe('0.000000123');
    expect(plainNumber(1e-9)).toBe('0.000000001');
    expect(plainNumber(1.5e21)).toBe('1500000000000000000000');
    expect(plainNumber(-2.5e-7)).toBe('-0.00000025');
    for (const n of [5e-8, 1.23e-7, 1e-9, 0.1 + 0.2, 1.5e21, 987654.000000001]) expect(Number(plainNumber(n))).toBe(n);
  });
});

describe('CSV stream', () => {
  const row = (n: number) => ({
    requestId: `job_${n}`,
    completedAt: toTimestamp(new Date(Date.UTC(2026, 4, 1, 0, 0, n))),
    keyId: 'key_k',
    accountId: 'acc',
    gbSec: n / 4,
    amountUsd: 5e-8 * n,
  });
  const page = (ns: number[], nextCursor?: string) => create(ListUsageResponseSchema, { rows: ns.map(row), nextCursor });
  const collect = async (gen: AsyncIterable<string>) => {
    let out = '';
    for await (const chunk of gen) out += chunk;
    return out;
  };

  test('header, then page after page following next_cursor until there is none', async () => {
    const asked: string[] = [];
    const pages: Record<string, ReturnType<typeof page>> = { c1: page([3, 4], 'c2'), c2: page([], 'c3'), c3: page([5]) };
    const text = await collect(csvChunks(page([1, 2], 'c1'), async (c) => (asked.push(c), pages[c]!)));
    expect(asked).toEqual(['c1', 'c2', 'c3']);
    expect(text).toBe(
      'request_id,completed_at,key_id,gb_sec,amount_usd\r\n' +
        'job_1,2026-05-01T00:00:01.000Z,key_k,0.25,0.00000005\r\n' +
        'job_2,2026-05-01T00:00:02.000Z,key_k,0.5,0.0000001\r\n' +
        'job_3,2026-05-01T00:00:03.000Z,key_k,0.75,0.00000015\r\n' +
        'job_4,2026-05-01T00:00:04.000Z,key_k,1,0.0000002\r\n' +
        'job_5,2026-05-01T00:00:05.000Z,key_k,1.25,0.00000025\r\n',
    );
  });

  test('a failing later page ends the stream with that error (the response is cut, not completed)', async () => {
    const gen = csvChunks(page([1], 'c1'), async () => {
      throw new Error('billing went away');
    });
    await expect(collect(gen)).rejects.toThrow('billing went away');
  });
});
