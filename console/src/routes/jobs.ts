// Jobs: the account's jobs with a status filter and pages; a job's detail (its task as the request
// body spelt it, results, usage, error, live progress while it runs); cancel for a pending one.
import { Code, ConnectError } from '@connectrpc/connect';
import { type Job, type JobKind, JobKindSchema, JobStatus, JobStatusSchema } from '@media/proto/media/jobs/v1/jobs_pb.js';
import { enumNames, fromTimestamp, taskJson } from '@media/platform';
import type { FastifyPluginAsync } from 'fastify';
import type { Console } from '../route-context.js';
import { amount, bytes, html, postForm, when } from '../html.js';

const STATUS = enumNames<JobStatus>(JobStatusSchema);
const KIND = enumNames<JobKind>(JobKindSchema);
const PAGE = 25;

export const jobsRoutes: FastifyPluginAsync<Console> = async (app, c) => {
  app.get<{ Querystring: { status?: string; page?: string } }>('/jobs', async (req, reply) => {
    const who = c.signedIn(req, reply);
    if (!who) return reply;
    const status = STATUS.value(req.query.status ?? '');
    const page = Math.max(1, Math.min(10_000, Number.parseInt(req.query.page ?? '1', 10) || 1));
    // One more than a page: whether there is a next one.
    const { jobs } = await c.clients.jobs.listJobs({
      accountId: who.accountId,
      statuses: status === undefined ? [] : [status],
      limit: PAGE + 1,
      offset: (page - 1) * PAGE,
    });
    const shown = jobs.slice(0, PAGE);
    const link = (p: number) =>
      `/jobs?${new URLSearchParams({ ...(status !== undefined ? { status: STATUS.name(status)! } : {}), page: String(p) })}`;
    return c.page(
      req,
      reply,
      { title: 'Jobs', current: '/jobs' },
      () => html`
      <form method="get" action="/jobs" class="inline">
        <label for="status">Status</label>
        <select id="status" name="status">
          <option value="">all</option>
          ${STATUS.names.filter((n) => n !== 'unspecified').map((n) => html`<option${n === req.query.status ? html` selected` : ''}>${n}</option>`)}
        </select>
        <button type="submit" class="secondary">Filter</button>
      </form>
      ${
        shown.length === 0
          ? html`<p class="empty">${page > 1 ? 'No more jobs.' : status !== undefined ? `No ${STATUS.name(status)} jobs.` : 'No jobs yet. Run a task with POST /ffmpeg/process or /ffmpeg/process/async and it shows here.'}</p>`
          : html`<div class="table"><table>
              <thead><tr><th scope="col">Job</th><th scope="col">Status</th><th scope="col" class="optional">Kind</th><th scope="col" class="optional">Created</th><th scope="col">GB-s</th><th scope="col" class="optional">USD</th></tr></thead>
              <tbody>${shown.map(
                (
                  j,
                ) => html`<tr><td><a href="/jobs/${j.jobId}">${j.jobId}</a></td><td>${STATUS.name(j.status)}</td><td class="optional">${KIND.name(j.kind)}</td>
                  <td class="optional">${when(fromTimestamp(j.createdAt))}</td><td>${j.usage ? amount(j.usage.gbSec) : '—'}</td><td class="optional">${j.amountUsd === undefined ? '—' : amount(j.amountUsd)}</td></tr>`,
              )}</tbody></table></div>`
      }
      <div class="pager">${page > 1 ? html`<a href="${link(page - 1)}">Newer</a>` : ''}${jobs.length > PAGE ? html`<a href="${link(page + 1)}">Older</a>` : ''}</div>`,
    );
  });

  const ownJob = async (accountId: string, jobId: string): Promise<Job | undefined> => {
    try {
      return (await c.clients.jobs.getJob({ accountId, jobId })).job;
    } catch (err) {
      if (err instanceof ConnectError && (err.code === Code.NotFound || err.code === Code.InvalidArgument)) return undefined;
      throw err;
    }
  };

  app.get<{ Params: { id: string } }>('/jobs/:id', async (req, reply) => {
    const who = c.signedIn(req, reply);
    if (!who) return reply;
    const job = await ownJob(who.accountId, req.params.id);
    if (!job) return reply.callNotFound();
    const running = job.status === JobStatus.PENDING || job.status === JobStatus.PROCESSING;
    return c.page(
      req,
      reply,
      { title: `Job ${job.jobId}`, current: '/jobs' },
      (csrf) => html`
      <dl ${running ? html`data-live="2000"` : ''}>
        <dt>Status</dt><dd id="job-status">${STATUS.name(job.status)}</dd>
        <dt>Kind</dt><dd>${KIND.name(job.kind)}</dd>
        <dt>Created</dt><dd>${when(fromTimestamp(job.createdAt))}</dd>
        <dt>Finished</dt><dd>${when(fromTimestamp(job.completedAt))}</dd>
        <dt>Inputs, outputs</dt><dd>${job.inputCount}, ${job.outputCount}</dd>
      </dl>
      ${
        job.progress && job.status === JobStatus.PROCESSING
          ? html`<p>Progress: ${job.progress.percent.toFixed(1)} %${job.progress.etaSec !== undefined ? `, about ${Math.round(job.progress.etaSec)} s left` : ''}</p>
              <div class="progress" role="progressbar" aria-valuemin="0" aria-valuemax="100" aria-valuenow="${job.progress.percent.toFixed(0)}"><span style="width:${Math.min(100, job.progress.percent).toFixed(0)}%"></span></div>`
          : ''
      }
      ${running ? html`<p class="muted">This page refreshes while the job runs (<a href="/jobs/${job.jobId}">refresh</a>).</p>` : ''}
      ${job.error ? html`<h2>Error</h2><p class="notice">${job.error}</p>` : ''}
      ${
        job.result.length
          ? html`<h2>Results</h2><div class="table"><table><thead><tr><th scope="col">File</th><th scope="col">Size</th></tr></thead>
              <tbody>${job.result.map((r) => html`<tr><td><a href="${r.downloadUrl}">${r.fileName}</a></td><td>${bytes(Number(r.sizeBytes))}</td></tr>`)}</tbody></table></div>
              <p class="muted">Result links are valid for an hour after the job finished.</p>`
          : ''
      }
      ${
        job.task
          ? html`<h2>Task</h2><pre class="task" id="job-task" tabindex="0" aria-label="The task, as the request body">${JSON.stringify({ task: taskJson(job.task) }, null, 2)}</pre>`
          : ''
      }
      ${
        job.usage
          ? html`<h2>Usage</h2><p>${amount(job.usage.gbSec)} GB-seconds (${job.usage.timeSec.toFixed(2)} s, ${amount(job.usage.inputSizeGb)} GB in, ${amount(job.usage.outputSizeGb)} GB out): $${amount(job.amountUsd ?? 0)}</p>`
          : ''
      }
      ${job.status === JobStatus.PENDING ? postForm(`/jobs/${job.jobId}/cancel`, csrf, html`<button type="submit" class="danger">Cancel job</button>`) : ''}
      <p><a href="/jobs">All jobs</a></p>`,
    );
  });

  app.post<{ Params: { id: string } }>('/jobs/:id/cancel', { preHandler: c.checkForm }, async (req, reply) => {
    const who = c.signedIn(req, reply);
    if (!who) return reply;
    if (!(await ownJob(who.accountId, req.params.id))) return reply.callNotFound();
    try {
      await c.clients.jobs.cancelJob({ accountId: who.accountId, jobId: req.params.id });
    } catch (err) {
      // Started meanwhile: the job page says what it is doing now.
      if (!(err instanceof ConnectError) || err.code !== Code.FailedPrecondition) throw err;
    }
    return reply.redirect(`/jobs/${encodeURIComponent(req.params.id)}`, 303);
  });
};
