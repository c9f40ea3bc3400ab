// What GET /account costs Billing for an account with 1,000,000 usage rows this month against
// one with none: the month's total comes from exact hour totals plus the current hour's rows, so
// the two should cost about the same. Billing's service in this process, on its own embedded
// store; the rows go in through the charge ingestor, as charges do.
import { create } from '@bufbuild/protobuf';
import { openEmbeddedDocStore } from '@media/docstore';
import { newId, toTimestamp } from '@media/platform';
import { UsageChargedSchema } from '@media/proto/media/events/v1/events_pb.js';
import { JobKind } from '@media/proto/media/jobs/v1/jobs_pb.js';
import { createBillingService, createUsageIngestor, openBillingRepository } from '@media/svc-billing';
import { median } from '../lib/stats.js';
import type { Context, Row } from '../lib/report.js';

const ROWS = 1_000_000;
const us = (msec: number) => `${(msec * 1000).toFixed(0)} µs`;
const CALLS = 200;

export async function accountQuota(ctx: Context): Promise<Row> {
  const store = await openEmbeddedDocStore({ dataDir: ctx.workDir, database: 'bench_billing' });
  try {
    const repo = await openBillingRepository(store);
    const ingest = createUsageIngestor({ repo, logger: { info: () => {}, error: () => {} } as never });
    const now = new Date();
    const monthStart = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1);
    const busy = newId('acc_');
    const empty = newId('acc_');
    const started = Date.now();
    // Spread over the month so far (the current hour included).
    const span = Math.max(1, now.getTime() - monthStart);
    for (let i = 0; i < ROWS; i++) {
      const completedAt = new Date(monthStart + Math.floor((i / ROWS) * span));
      await ingest(
        create(UsageChargedSchema, {
          requestId: newId('job_'),
          accountId: busy,
          keyId: 'key_bench',
          completedAt: toTimestamp(completedAt),
          usage: { gbSec: 0.000123457 },
          amountUsd: 0.000001644,
          kind: JobKind.SYNC,
        }),
      );
    }
    ctx.log(`account quota: ${ROWS} rows stored in ${((Date.now() - started) / 1000).toFixed(0)} s`);
    const svc = createBillingService({ repo });
    const quota = (accountId: string) => svc.getQuota!({ accountId } as never, {} as never) as Promise<{ usedGbSec: number }>;
    const expected = Number(((ROWS * 123457) / 1e9).toFixed(9));
    const first = await quota(busy); // sums each hour once
    if (first.usedGbSec !== expected) throw new Error(`GET /account total ${first.usedGbSec}, expected ${expected}`);
    const timeOf = async (accountId: string) => {
      const t0 = performance.now();
      await quota(accountId);
      return performance.now() - t0;
    };
    const none: number[] = [];
    const million: number[] = [];
    for (let i = 0; i < CALLS; i++) {
      none.push(await timeOf(empty));
      million.push(await timeOf(busy));
    }
    const a = median(none);
    const b = median(million);
    ctx.log(`account quota: 0 rows ${us(a)}, ${ROWS} rows ${us(b)} (medians of ${CALLS} alternating calls)`);
    return {
      benchmark: `\`GET /account\` month total (Billing), ${ROWS.toLocaleString('en')} usage rows this month`,
      baseline: `${us(a)} (an account with no rows)`,
      service: us(b),
      figure: `${(b / a).toFixed(2)}x`,
      target: '<= 3x (independent of history)',
      met: b / a <= 3,
    };
  } finally {
    await store.close();
  }
}
