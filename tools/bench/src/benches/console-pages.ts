// The web console's pages for an account with 10,000 jobs and 100,000 usage rows this month, on
// npm start: each page's time to its last byte (the median of the runs), the slowest against the
// issue's 1 s. The account's jobs and rows are written straight into the stopped service's own
// databases through its repositories (running 10,000 real jobs would take hours), then the
// service starts again on them. Baseline: the same pages of an account with one job and one row.
import { performance } from 'node:perf_hooks';
import { openDocStore } from '@media/docstore';
import { openBillingRepository } from '@media/svc-billing';
import { newJobDoc, openJobsRepository } from '@media/svc-jobs';
import { spawnStack, type Spawned } from '@media/testkit';
import { median } from '../lib/stats.js';
import type { Context, Row } from '../lib/report.js';

const JOBS = 10_000;
const ROWS = 100_000;
const PAGES = ['/keys', '/usage', '/jobs', '/jobs?status=completed&page=40', '/files', '/webhooks'];
const BUDGET_MS = 1000;

async function seed(dataDir: string, accountId: string, keyId: string, jobs: number, rows: number): Promise<string> {
  const jobsStore = await openDocStore({ dataDir, database: 'jobs' });
  const billingStore = await openDocStore({ dataDir, database: 'billing' });
  try {
    const jobsRepo = await openJobsRepository(jobsStore);
    const billing = await openBillingRepository(billingStore);
    const now = Date.now();
    let lastJob = '';
    for (let i = 0; i < jobs; i++) {
      const usage = { timeSec: 2, inputSizeGb: 0.01, outputSizeGb: 0.005, gbSec: 0.03 };
      const doc = newJobDoc(
        { accountId, keyId },
        i % 2 ? 'async' : 'sync',
        'completed',
        { inputCount: 1, outputCount: 1 },
        {
          createdAt: new Date(now - i * 60_000),
          completedAt: new Date(now - i * 60_000 + 2000),
          usage,
          amountUsd: 0.000_06,
          result: [{ fileName: 'out.mp4', sizeBytes: 5_000_000, downloadUrl: 'http://localhost/out.mp4' }],
        },
      );
      await jobsRepo.admit(doc, Number.MAX_SAFE_INTEGER);
      lastJob = doc._id;
    }
    // This month's rows, spread over its days so far.
    const monthStart = Date.UTC(new Date(now).getUTCFullYear(), new Date(now).getUTCMonth(), 1);
    const span = Math.max(1, now - monthStart - 1000);
    for (let i = 0; i < rows; i++) {
      const completedAt = new Date(monthStart + Math.floor((span * i) / rows));
      await billing.insert({
        requestId: `job_seed${String(i).padStart(14, '0')}`,
        accountId,
        keyId,
        completedAt,
        gbSec: 0.03,
        amountUsd: 0.000_06,
        kind: 'async',
      });
    }
    if (rows) await billing.markHour(accountId, new Date(Math.floor(now / 3_600_000) * 3_600_000));
    return lastJob;
  } finally {
    await jobsStore.close();
    await billingStore.close();
  }
}

/** The median time of each page over `runs`, signed in through a login link. */
async function timePages(stack: Spawned, accountId: string, jobId: string, runs: number): Promise<Map<string, number>> {
  const consoleUrl = /web console:\s+(\S+)/.exec(stack.banner)![1]!;
  const { url } = await stack.admin('account', 'login-link', accountId);
  const login = await fetch(String(url).replace(/^http:\/\/localhost:\d+/, consoleUrl), { redirect: 'manual' });
  const cookie = String(login.headers.get('set-cookie')).split(';')[0]!;
  const times = new Map<string, number>();
  // A job's page and the CSV download (a stream: reported, not held to the page budget).
  for (const path of [...PAGES, `/jobs/${jobId}`, '/usage.csv']) {
    const samples: number[] = [];
    for (let i = 0; i < runs + 1; i++) {
      const started = performance.now();
      const res = await fetch(`${consoleUrl}${path}`, { headers: { cookie } });
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`${path} answered ${res.status}`);
      if (i > 0) samples.push(performance.now() - started); // the first warms the caches
    }
    times.set(path.startsWith('/jobs/job_') ? '/jobs/<id>' : path, median(samples));
  }
  return times;
}

async function measure(ctx: Context, jobs: number, rows: number): Promise<Map<string, number>> {
  // Once to make the account and its key, then again on the seeded databases.
  const first = await spawnStack({ LOG_LEVEL: 'error' });
  const { account_id: accountId } = await first.admin('account', 'create');
  const { key_id: keyId } = await first.admin('key', 'create', '--account', String(accountId), '--name', 'seed');
  await first.kill();
  ctx.log(`  seeding ${jobs} jobs and ${rows} usage rows...`);
  const lastJob = await seed(first.dataDir, String(accountId), String(keyId), jobs, rows);
  const stack = await spawnStack({ LOG_LEVEL: 'error' }, first.dataDir);
  try {
    return await timePages(stack, String(accountId), lastJob, ctx.runs);
  } finally {
    await stack.stop();
  }
}

export async function consolePages(ctx: Context): Promise<Row> {
  const small = await measure(ctx, 1, 1);
  const big = await measure(ctx, JOBS, ROWS);
  const slowest = [...big].filter(([p]) => p !== '/usage.csv').sort((a, b) => b[1] - a[1])[0]!;
  ctx.log(`  pages (ms): ${[...big].map(([p, ms]) => `${p} ${Math.round(ms)} (small ${Math.round(small.get(p)!)})`).join(', ')}`);
  return {
    benchmark: `console pages, ${JOBS.toLocaleString('en')} jobs and ${ROWS.toLocaleString('en')} usage rows`,
    baseline: `${Math.round(Math.max(...[...small].filter(([p]) => p !== '/usage.csv').map(([, ms]) => ms)))} ms (slowest page, 1 job and 1 row)`,
    service: `${Math.round(slowest[1])} ms (${slowest[0]})`,
    figure: `${Math.round(slowest[1])} ms`,
    target: `every page < ${BUDGET_MS} ms`,
    met: slowest[1] < BUDGET_MS,
  };
}
