// Usage: the period's totals and latest rows (never the whole export), and the account's figures.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { MediaClient } from '@media/client';
import { DESCRIPTIONS } from '../descriptions.js';
import { guarded, ok } from '../results.js';

/** Rows shown at most; the totals count them all. */
const MAX_ROWS = 50;

export function registerUsageTools(server: McpServer, media: MediaClient) {
  server.registerTool(
    'usage',
    {
      title: 'Usage and charges',
      description: DESCRIPTIONS.usage,
      inputSchema: {
        month: z.string().optional().describe('YYYY-MM (UTC); default: the current month'),
        from: z.string().optional().describe('with to: a date or an ISO 8601 time'),
        to: z.string().optional().describe('with from: a date (the whole day) or an ISO 8601 time'),
        key_id: z.string().optional().describe('only the requests made with this key'),
      },
      outputSchema: {
        requests: z.number(),
        gb_sec: z.number(),
        amount_usd: z.number(),
        latest_rows: z.array(z.record(z.string(), z.unknown())).describe(`the latest ${MAX_ROWS} rows at most, newest last`),
        account: z.record(z.string(), z.unknown()).describe("this month's quota figures, the limits and the jobs in progress"),
      },
      annotations: { readOnlyHint: true },
    },
    guarded(async (query) => {
      const [rows, account] = await Promise.all([media.usageRows(query), media.account()]);
      const sum = (pick: (r: (typeof rows)[number]) => number | undefined) => round(rows.reduce((a, r) => a + (pick(r) ?? 0), 0));
      return ok({
        requests: rows.length,
        gb_sec: sum((r) => r.gb_sec),
        amount_usd: sum((r) => r.amount_usd),
        latest_rows: rows.slice(-MAX_ROWS),
        account: { quota: account.quota, limits: account.limits, jobs: account.jobs },
      });
    }),
  );
}

/** The API's own precision: 9 decimal places. */
function round(n: number) {
  return Math.round(n * 1e9) / 1e9;
}
