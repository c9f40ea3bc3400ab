// Usage: a month's GB-seconds and USD per day (a chart drawn in HTML, no script, stacked by key),
// the month's totals (the same figures as GET /account), from the totals Billing keeps per hour
// and key; and the rows themselves as CSV or JSON downloads.
import { Readable } from 'node:stream';
import { csvChunks, fromTimestamp, toTimestamp, usageRowJson } from '@media/platform';
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import type { Console } from '../route-context.js';
import { amount, html } from '../html.js';
import { usageChart } from '../usage-chart.js';

const MONTH = /^(\d{4})-(0[1-9]|1[0-2])$/;
const PAGE_ROWS = 10_000;

/** The UTC month asked for (YYYY-MM), else the current one. */
function monthOf(text: string | undefined, now = new Date()): { label: string; from: Date; to: Date } {
  const m = MONTH.exec(text ?? '');
  const year = m ? Number(m[1]) : now.getUTCFullYear();
  const month = m ? Number(m[2]) - 1 : now.getUTCMonth();
  const from = new Date(Date.UTC(year, month, 1));
  const to = new Date(Date.UTC(year, month + 1, 1));
  return { label: from.toISOString().slice(0, 7), from, to };
}

export const usageRoutes: FastifyPluginAsync<Console> = async (app, c) => {
  app.get<{ Querystring: { month?: string } }>('/usage', async (req, reply) => {
    const who = c.signedIn(req, reply);
    if (!who) return reply;
    const month = monthOf(req.query.month);
    const days = new Date(month.to.getTime() - 86_400_000).getUTCDate();
    const perDay = Array.from({ length: days }, () => ({ gbSec: 0, usd: 0, jobs: 0, byKey: new Map<string, number>() }));
    const perKey = new Map<string, { gbSec: number; usd: number; jobs: number }>();
    // Billing's kept totals per hour and key: the same cost whatever the number of rows.
    const { totals } = await c.clients.billing.getUsageSummary({ accountId: who.accountId, yearMonth: month.label });
    for (const t of totals) {
      const d = perDay[fromTimestamp(t.hour)!.getUTCDate() - 1]!;
      d.gbSec += t.gbSec;
      d.usd += t.amountUsd;
      d.jobs += t.jobs;
      d.byKey.set(t.keyId, (d.byKey.get(t.keyId) ?? 0) + t.gbSec);
      const k = perKey.get(t.keyId) ?? { gbSec: 0, usd: 0, jobs: 0 };
      k.gbSec += t.gbSec;
      k.usd += t.amountUsd;
      k.jobs += t.jobs;
      perKey.set(t.keyId, k);
    }
    const total = perDay.reduce((a, d) => ({ gbSec: a.gbSec + d.gbSec, usd: a.usd + d.usd, jobs: a.jobs + d.jobs }), {
      gbSec: 0,
      usd: 0,
      jobs: 0,
    });
    const names = new Map((await c.clients.auth.listKeys({ accountId: who.accountId })).keys.map((k) => [k.keyId, k.name]));
    const q = `month=${month.label}`;
    return c.page(
      req,
      reply,
      { title: 'Usage', current: '/usage' },
      () => html`
      <form method="get" action="/usage" class="inline">
        <label for="month">Month (UTC)</label><input type="month" id="month" name="month" value="${month.label}">
        <button type="submit" class="secondary">Show</button>
      </form>
      <p>Total for ${month.label}: <strong id="total-gb-sec">${amount(total.gbSec)}</strong> GB-seconds,
        <strong id="total-usd">$${amount(total.usd)}</strong>, ${total.jobs} charged ${total.jobs === 1 ? 'job' : 'jobs'}.
        Download the rows: <a href="/usage.csv?${q}" download>CSV</a>, <a href="/usage.json?${q}" download>JSON</a>.</p>
      ${
        total.jobs === 0
          ? html`<p class="empty">No usage in ${month.label}. Each completed job adds a row here.</p>`
          : html`${usageChart(month.label, perDay, (id) => names.get(id) ?? id)}
            <h2>By key</h2>
            <div class="table"><table><thead><tr><th scope="col">Key</th><th scope="col">Jobs</th><th scope="col">GB-s</th><th scope="col">USD</th></tr></thead>
            <tbody>${[...perKey].sort((a, b) => b[1].gbSec - a[1].gbSec).map(([id, k]) => html`<tr><td>${names.get(id) ?? id}</td><td>${k.jobs}</td><td>${amount(k.gbSec)}</td><td>${amount(k.usd)}</td></tr>`)}</tbody></table></div>
            <h2>By day</h2>
            <div class="table"><table><thead><tr><th scope="col">Day</th><th scope="col">Jobs</th><th scope="col">GB-s</th><th scope="col">USD</th></tr></thead>
            <tbody>${perDay.map((d, i) => (d.jobs ? html`<tr><td>${month.label}-${String(i + 1).padStart(2, '0')}</td><td>${d.jobs}</td><td>${amount(d.gbSec)}</td><td>${amount(d.usd)}</td></tr>` : ''))}</tbody></table></div>`
      }`,
    );
  });

  /**
   * The month's rows as they come from Billing, in the API's export format (CSV as GET
   * /account/usage writes it; JSON an array of its rows): constant memory whatever their number.
   */
  async function download(reply: FastifyReply, accountId: string, monthText: string | undefined, format: 'csv' | 'json') {
    const month = monthOf(monthText);
    reply.header('content-disposition', `attachment; filename="usage-${month.label}.${format}"`);
    reply.type(format === 'csv' ? 'text/csv; charset=utf-8' : 'application/json');
    const page = (cursor?: string) =>
      c.clients.billing.listUsage({ accountId, from: toTimestamp(month.from), to: toTimestamp(month.to), limit: PAGE_ROWS, cursor });
    const first = await page();
    async function* json() {
      yield '[';
      let separator = '';
      // From the page already read, as csvChunks goes on from it.
      for (let p = first; ; p = await page(p.nextCursor)) {
        for (const r of p.rows) {
          yield `${separator}${JSON.stringify(usageRowJson(r))}`;
          separator = ',';
        }
        if (!p.nextCursor) break;
      }
      yield ']';
    }
    return reply.send(Readable.from(format === 'csv' ? csvChunks(first, page) : json()));
  }
  for (const format of ['csv', 'json'] as const)
    app.get<{ Querystring: { month?: string } }>(`/usage.${format}`, async (req, reply) => {
      const who = c.signedIn(req, reply);
      if (!who) return reply;
      return download(reply, who.accountId, req.query.month, format);
    });
};
