// The usage export's format, one home for the API (GET /account/usage) and the web console's
// downloads: CSV records (RFC 4180, CRLF) with plain numbers, and the JSON row.
import { stringify } from 'csv-stringify/sync';
import type { ListUsageResponse, UsageRow } from '@media/proto/media/billing/v1/billing_pb.js';
import { fromTimestamp, iso } from './time.js';

export const CSV_HEADER = ['request_id', 'completed_at', 'key_id', 'gb_sec', 'amount_usd'];

/**
 * JavaScript's shortest round-trip digits, never exponent notation: 5e-8 prints 0.00000005, so
 * every spreadsheet and `awk` reads the amount as written.
 */
export function plainNumber(n: number): string {
  const text = String(n);
  const m = /^(-?)(\d)(?:\.(\d+))?e([+-]\d+)$/.exec(text);
  if (!m) return text;
  const [, sign, lead, frac = '', exp] = m;
  const e = Number(exp);
  return e < 0 ? `${sign}0.${'0'.repeat(-e - 1)}${lead}${frac}` : `${sign}${lead}${frac}${'0'.repeat(e - frac.length)}`;
}

/** RFC 4180 records, CRLF after each; any field with a comma, quote, CR or LF is quoted. */
export function csvRecords(records: string[][]): string {
  return stringify(records, { record_delimiter: 'windows', quoted_match: /[\r\n]/ });
}

const csvFields = (r: UsageRow): string[] => [
  r.requestId,
  iso(fromTimestamp(r.completedAt)!),
  r.keyId,
  plainNumber(r.gbSec),
  plainNumber(r.amountUsd),
];

/** Header, then page after page: memory stays one page whatever the export's size. */
export async function* csvChunks(first: ListUsageResponse, next: (cursor: string) => Promise<ListUsageResponse>) {
  yield csvRecords([CSV_HEADER]);
  let page = first;
  for (;;) {
    if (page.rows.length > 0) yield csvRecords(page.rows.map(csvFields));
    if (!page.nextCursor) return;
    page = await next(page.nextCursor);
  }
}

/** One row as the JSON export shows it. */
export const usageRowJson = (r: UsageRow) => ({
  request_id: r.requestId,
  completed_at: iso(fromTimestamp(r.completedAt)!),
  key_id: r.keyId,
  gb_sec: r.gbSec,
  amount_usd: r.amountUsd,
});
