// GET /account/usage: the account's usage rows (every key's) as CSV (default) or JSON pages.
// The query's rules live here (docs/api/usage.md); Billing stores and pages rows.
import { Readable } from 'node:stream';
import type { FastifyPluginAsyncJsonSchemaToTs } from '@fastify/type-provider-json-schema-to-ts';
import type { Client } from '@connectrpc/connect';
import type { BillingService } from '@media/proto/media/billing/v1/billing_pb.js';
import { csvChunks, Errors, iso, toTimestamp, usageRowJson as rowJson } from '@media/platform';
import { rpcOptions } from '../plugins/request-id.js';
import { allRequired, authedErrors, nullable } from './schemas.js';

export const USAGE_RULES = {
  month: 'month must be a calendar month from 1970-01 to 9999-12 written YYYY-MM, e.g. 2026-05',
  from: 'from must be a date (YYYY-MM-DD) or an ISO 8601 time with a time zone, e.g. 2026-05-01T00:00:00Z',
  to: 'to must be a date (YYYY-MM-DD) or an ISO 8601 time with a time zone, e.g. 2026-05-31T23:59:59Z',
  monthWithRange: 'month cannot be combined with from and to: give either month, or from and to',
  pair: 'from and to must be given together',
  order: 'from must not be after to',
  keyId: 'key_id must be a key id: key_ followed by letters and digits',
  format: 'format must be csv or json',
  limit: 'limit must be an integer from 1 to 10000',
  cursor: 'cursor must be the next_cursor of the previous page',
  jsonOnly: 'limit and cursor apply to format=json only; the CSV export always has every row',
} as const;

const DEFAULT_LIMIT = 1000;
/** Rows per Billing call while streaming a CSV export. */
const CSV_PAGE = 10_000;

const usageQuery = {
  type: 'object',
  additionalProperties: false,
  properties: {
    month: { type: 'string', errorMessage: USAGE_RULES.month },
    from: { type: 'string', errorMessage: USAGE_RULES.from },
    to: { type: 'string', errorMessage: USAGE_RULES.to },
    key_id: { type: 'string', pattern: '^key_[A-Za-z0-9]{1,64}$', errorMessage: USAGE_RULES.keyId },
    format: { type: 'string', enum: ['csv', 'json'], errorMessage: USAGE_RULES.format },
    limit: { type: 'integer', minimum: 1, maximum: 10000, errorMessage: USAGE_RULES.limit },
    cursor: { type: 'string', errorMessage: USAGE_RULES.cursor },
  },
} as const;

const usageRowSchema = allRequired({
  request_id: { type: 'string' },
  completed_at: { type: 'string' },
  key_id: { type: 'string' },
  gb_sec: { type: 'number' },
  amount_usd: { type: 'number' },
});

const jsonResponse = allRequired({
  ok: { type: 'boolean' },
  from: { type: 'string' },
  to: { type: 'string' },
  rows: { type: 'array', items: usageRowSchema },
  next_cursor: nullable('string'),
});

// ---- The period: [from, to) in UTC milliseconds -------------------------------------------

const MIN_YEAR = 1970;
const DAY_MS = 86_400_000;
const MONTH = /^(\d{4})-(\d{2})$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const TIME = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?(?:([Zz])|([+-])(\d{2})(?::?(\d{2}))?)$/;

/** Midnight UTC of a real calendar day, or undefined (2026-02-30, year 1969...). */
function dayStart(y: string, m: string, d: string): number | undefined {
  const [year, month, day] = [Number(y), Number(m), Number(d)];
  if (year < MIN_YEAR || month < 1 || month > 12 || day < 1) return undefined;
  const ms = Date.UTC(year, month - 1, day);
  return new Date(ms).getUTCDate() === day ? ms : undefined;
}

/**
 * A `from` or `to` value as an instant. A date is its whole day: `from` starts at its midnight,
 * `to` ends at the next midnight. An ISO time is inclusive; sub-millisecond digits round inward.
 * Returns [from-side start, to-side exclusive end].
 */
function parseBound(raw: string): { start: number; end: number } | undefined {
  // An unencoded '+' of an offset arrives as a space: read it as the '+' it was.
  const value = raw.replace(/ (\d{2}(?::?\d{2})?)$/, '+$1');
  const date = DATE.exec(value);
  if (date) {
    const start = dayStart(date[1]!, date[2]!, date[3]!);
    return start === undefined ? undefined : { start, end: start + DAY_MS };
  }
  const t = TIME.exec(value);
  if (!t) return undefined;
  const day = dayStart(t[1]!, t[2]!, t[3]!);
  const [hh, mm, ss] = [Number(t[4]), Number(t[5]), Number(t[6] ?? 0)];
  const [offH, offM] = [Number(t[10] ?? 0), Number(t[11] ?? 0)];
  if (day === undefined || hh > 23 || mm > 59 || ss > 59 || offH > 23 || offM > 59) return undefined;
  const frac = t[7] ?? '';
  const ms = Number(frac.padEnd(3, '0').slice(0, 3));
  const partialMs = /[1-9]/.test(frac.slice(3)) ? 1 : 0;
  const offset = (t[9] === '-' ? -1 : 1) * (offH * 60 + offM) * 60_000;
  const at = day + ((hh * 60 + mm) * 60 + ss) * 1000 + ms - offset;
  return { start: at + partialMs, end: at + 1 };
}

function parseMonth(value: string): { start: number; end: number } | undefined {
  const m = MONTH.exec(value);
  const start = m ? dayStart(m[1]!, m[2]!, '01') : undefined;
  if (start === undefined) return undefined;
  const d = new Date(start);
  return { start, end: Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1) };
}

/** The range a query selects, [from, to); neither month nor from/to: the current UTC month. */
export function usagePeriod(
  q: { month?: string | undefined; from?: string | undefined; to?: string | undefined },
  now: Date,
): { from: Date; to: Date } {
  if (q.month !== undefined && (q.from !== undefined || q.to !== undefined)) throw Errors.invalidRequest(USAGE_RULES.monthWithRange);
  if (q.month !== undefined) {
    const month = parseMonth(q.month);
    if (!month) throw Errors.invalidRequest(USAGE_RULES.month);
    return { from: new Date(month.start), to: new Date(month.end) };
  }
  if (q.from === undefined && q.to === undefined) {
    const month = parseMonth(iso(now).slice(0, 7))!;
    return { from: new Date(month.start), to: new Date(month.end) };
  }
  if (q.from === undefined || q.to === undefined) throw Errors.invalidRequest(USAGE_RULES.pair);
  const from = parseBound(q.from);
  if (!from) throw Errors.invalidRequest(USAGE_RULES.from);
  const to = parseBound(q.to);
  if (!to) throw Errors.invalidRequest(USAGE_RULES.to);
  if (from.start >= to.end) throw Errors.invalidRequest(USAGE_RULES.order);
  return { from: new Date(from.start), to: new Date(to.end) };
}

// ---- The route -------------------------------------------------------------------------------

export const usageRoutes: FastifyPluginAsyncJsonSchemaToTs<{ Options: { billing: Client<typeof BillingService> } }> = async (
  app,
  { billing },
) => {
  const schema = {
    tags: ['Account'],
    operationId: 'exportUsage',
    summary: 'Export usage rows',
    description: 'Every charged request of the account (all keys) in the period: CSV (default, every row) or JSON pages.',
    querystring: usageQuery,
    response: {
      200: {
        description: 'The rows: text/csv for format=csv (the default), application/json for format=json.',
        content: {
          'application/json': { schema: jsonResponse },
          'text/csv': { schema: { type: 'string', description: 'request_id,completed_at,key_id,gb_sec,amount_usd' } },
        },
      },
      ...authedErrors(),
    },
  } as const;
  app.get('/account/usage', { schema }, async (req, reply) => {
    const q = req.query;
    const format = q.format ?? 'csv';
    if (format === 'csv' && (q.limit !== undefined || q.cursor !== undefined)) throw Errors.invalidRequest(USAGE_RULES.jsonOnly);
    const period = usagePeriod(q, new Date());
    const query = {
      accountId: req.principal.accountId,
      from: toTimestamp(period.from),
      to: toTimestamp(period.to),
      ...(q.key_id !== undefined ? { keyId: q.key_id } : {}),
    };
    if (format === 'json') {
      const page = await billing.listUsage({ ...query, limit: q.limit ?? DEFAULT_LIMIT, cursor: q.cursor }, rpcOptions(req));
      return {
        ok: true,
        // The effective range, both ends inclusive: sent back as from/to it selects the same rows.
        from: iso(period.from),
        to: iso(new Date(period.to.getTime() - 1)),
        rows: page.rows.map(rowJson),
        next_cursor: page.nextCursor ?? null,
      };
    }
    // The first page is read before answering, so a failure there is still a proper error.
    const first = await billing.listUsage({ ...query, limit: CSV_PAGE }, rpcOptions(req));
    const next = (cursor: string) => billing.listUsage({ ...query, limit: CSV_PAGE, cursor }, rpcOptions(req));
    reply.type('text/csv; charset=utf-8').header('content-disposition', 'attachment; filename="usage.csv"');
    // A text stream: the 200 schema describes format=json only.
    const csv: unknown = Readable.from(csvChunks(first, next), { objectMode: false });
    return reply.send(csv as Parameters<typeof reply.send>[0]);
  });
};
