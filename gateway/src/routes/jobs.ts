// POST /ffmpeg/process/async, GET /job/{jobId}, DELETE /job/{jobId}, GET /jobs.
import type { FastifyPluginAsyncJsonSchemaToTs } from '@fastify/type-provider-json-schema-to-ts';
import { LRUCache } from 'lru-cache';
import type { Client } from '@connectrpc/connect';
import { JobStatus, JobStatusSchema, type Job, type JobsService } from '@media/proto/media/jobs/v1/jobs_pb.js';
import { readTaskRequest } from '@media/media';
import { enumNames, Errors, isoFromTimestamp, resultItemJson, usageJson } from '@media/platform';
import type { RouteFlags } from '../plugins/body.js';
import { rpcOptions } from '../plugins/request-id.js';
import { documentTaskBody } from './process.js';
import { allRequired, authedErrors, noQuery, nullable, okResponse, resultItemSchema, stringParams, usageSchema } from './schemas.js';

const STATUS = enumNames<JobStatus>(JobStatusSchema);
const FINISHED = new Set([JobStatus.COMPLETED, JobStatus.FAILED, JobStatus.CANCELLED]);
const nameOf = (s: JobStatus) => STATUS.name(s) ?? 'unknown';

// No length limit: an id longer than any job's is missing like any other (404, as the spec says).
const jobParams = stringParams('jobId');

const jobResponse = {
  description: 'The job: result and usage once completed, error once failed, progress while processing.',
  type: 'object',
  required: ['ok', 'job_id', 'status', 'request_id'],
  properties: {
    ok: { type: 'boolean' },
    job_id: { type: 'string' },
    status: { type: 'string', enum: STATUS.names },
    request_id: { type: 'string' },
    result: { type: 'array', items: resultItemSchema },
    usage: usageSchema,
    amount_usd: { type: 'number' },
    error: { type: 'string' },
    split_parts: {
      type: 'integer',
      description: 'Completed jobs whose video was encoded in this many parts in parallel, split at keyframes (beyond the spec).',
    },
    progress: {
      type: 'object',
      properties: { percent: { type: 'number' }, fps: { type: 'number' }, speed: { type: 'number' }, eta_sec: nullable('number') },
    },
  },
} as const;

const summary = allRequired({
  id: { type: 'string' },
  status: { type: 'string', enum: STATUS.names },
  webhook_url: nullable('string'),
  created_at: { type: 'string' },
  updated_at: { type: 'string' },
  completed_at: nullable('string'),
  input_count: { type: 'integer' },
  output_count: { type: 'integer' },
  has_error: { type: 'boolean' },
});

const listQuery = {
  type: 'object',
  additionalProperties: false,
  properties: {
    status: { type: 'string', maxLength: 200, description: 'Only jobs in these states, comma-separated: pending,processing.' },
    limit: { type: 'integer', minimum: 1, maximum: 100, errorMessage: 'limit must be a whole number from 1 to 100' },
    offset: {
      type: 'integer',
      minimum: 0,
      maximum: Number.MAX_SAFE_INTEGER,
      errorMessage: 'offset must be a whole number from 0 to 9007199254740991',
    },
    sort: { type: 'string', enum: ['created_at_desc', 'created_at_asc'], errorMessage: 'sort must be created_at_desc or created_at_asc' },
  },
} as const;

const INT32_MAX = 2_147_483_647;

/** What GET /job shows for each state (docs/api/async-jobs.md). */
function jobJson(job: Job) {
  const status = nameOf(job.status);
  const base = { ok: true, job_id: job.jobId, status, request_id: job.jobId };
  if (job.status === JobStatus.COMPLETED) {
    return {
      ...base,
      result: job.result.map(resultItemJson),
      usage: usageJson(job.usage),
      amount_usd: job.amountUsd ?? 0,
      ...(job.splitParts === undefined ? {} : { split_parts: job.splitParts }),
    };
  }
  if (job.status === JobStatus.FAILED) return { ...base, error: job.error ?? Errors.internal().message };
  if (job.status === JobStatus.PROCESSING && job.progress) {
    const p = job.progress;
    return { ...base, progress: { percent: p.percent, fps: p.fps, speed: p.speed, eta_sec: p.etaSec ?? null } };
  }
  return base;
}

const asyncBody = { type: 'object' } as const;
const postFlags: RouteFlags = { bodyRequired: true, idempotent: true };

export const jobRoutes: FastifyPluginAsyncJsonSchemaToTs<{ Options: { jobs: Client<typeof JobsService> } }> = async (app, { jobs }) => {
  const tags = ['Jobs'];
  app.post(
    '/ffmpeg/process/async',
    {
      config: { ...postFlags, swaggerTransform: documentTaskBody({ allowWebhook: true }) },
      schema: {
        tags,
        operationId: 'submitJob',
        summary: 'Queue an FFmpeg task as a job',
        description: 'Nothing is charged until it completes. Poll GET /job/{jobId}, or give webhook_url to be called.',
        querystring: noQuery,
        body: asyncBody,
        response: {
          ...authedErrors(404),
          202: okResponse('The job is queued.', {
            job_id: { type: 'string' },
            status: { type: 'string', enum: ['pending'] },
            request_id: { type: 'string' },
          }),
        },
      },
    },
    async (req, reply) => {
      const { task, webhookUrl } = readTaskRequest(req.body, { allowWebhook: true });
      const { accountId, keyId } = req.principal;
      const res = await jobs.submitAsync({ accountId, keyId, task, webhookUrl }, rpcOptions(req));
      return reply.status(202).send({ ok: true, job_id: res.jobId, status: 'pending', request_id: res.jobId });
    },
  );

  // A completed, failed or cancelled job never changes again (its download URLs were signed when
  // it finished), so the gateway answers repeated polls of one from memory.
  const finished = new LRUCache<string, ReturnType<typeof jobJson>>({ max: 10_000, ttl: 60_000 });
  const getJob = {
    tags,
    operationId: 'getJob',
    summary: 'Read a job',
    params: jobParams,
    querystring: noQuery,
    response: { 200: jobResponse, ...authedErrors(404) },
  } as const;
  app.get('/job/:jobId', { schema: getJob }, async (req) => {
    const cacheKey = `${req.principal.accountId}/${req.params.jobId}`;
    const hit = finished.get(cacheKey);
    if (hit) return hit;
    const { job } = await jobs.getJob({ accountId: req.principal.accountId, jobId: req.params.jobId }, rpcOptions(req));
    const view = jobJson(job!);
    if (FINISHED.has(job!.status)) finished.set(cacheKey, view);
    return view;
  });

  app.delete(
    '/job/:jobId',
    {
      schema: {
        tags,
        operationId: 'cancelJob',
        summary: 'Cancel a pending job',
        params: jobParams,
        querystring: noQuery,
        response: {
          200: okResponse('The job was cancelled.', { message: { type: 'string' } }),
          ...authedErrors(404, 409),
        },
      },
    },
    async (req) => {
      const res = await jobs.cancelJob({ accountId: req.principal.accountId, jobId: req.params.jobId }, rpcOptions(req));
      return { ok: true, message: res.message };
    },
  );

  app.get(
    '/jobs',
    {
      schema: {
        tags,
        operationId: 'listJobs',
        summary: 'List jobs',
        querystring: listQuery,
        response: {
          ...authedErrors(),
          200: okResponse('A page of jobs, newest first by default.', {
            jobs: { type: 'array', items: summary },
            pagination: allRequired({
              total: { type: 'integer' },
              limit: { type: 'integer' },
              offset: { type: 'integer' },
              has_more: { type: 'boolean' },
            }),
          }),
        },
      },
    },
    async (req) => {
      const limit = req.query.limit ?? 20;
      const offset = req.query.offset ?? 0;
      const statuses = (req.query.status ?? '')
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean)
        .map((s) => {
          const st = STATUS.value(s);
          if (st === undefined) throw Errors.invalidRequest(`status '${s}' is not one of ${STATUS.names.join(', ')}`);
          return st;
        });
      if (req.query.status !== undefined && statuses.length === 0)
        throw Errors.invalidRequest(`status must name at least one of ${STATUS.names.join(', ')}`);
      // Past any account's jobs, an offset is just past the end: the RPC's int32 holds that much.
      const res = await jobs.listJobs(
        {
          accountId: req.principal.accountId,
          statuses,
          limit,
          offset: Math.min(offset, INT32_MAX),
          ascending: req.query.sort === 'created_at_asc',
        },
        rpcOptions(req),
      );
      return {
        ok: true,
        jobs: res.jobs.map((j) => ({
          id: j.jobId,
          status: nameOf(j.status),
          webhook_url: j.webhookUrl ?? null,
          created_at: isoFromTimestamp(j.createdAt)!,
          updated_at: isoFromTimestamp(j.updatedAt)!,
          completed_at: isoFromTimestamp(j.completedAt),
          input_count: j.inputCount,
          output_count: j.outputCount,
          has_error: j.error !== undefined,
        })),
        pagination: { total: res.total, limit, offset, has_more: offset + res.jobs.length < res.total },
      };
    },
  );
};
