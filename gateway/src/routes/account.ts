// GET /account: plan, this month's usage (Billing), limits (config) and jobs in progress (Jobs).
import type { FastifyPluginAsyncJsonSchemaToTs } from '@fastify/type-provider-json-schema-to-ts';
import type { Client } from '@connectrpc/connect';
import type { BillingService } from '@media/proto/media/billing/v1/billing_pb.js';
import type { JobsService } from '@media/proto/media/jobs/v1/jobs_pb.js';
import { rpcOptions } from '../plugins/request-id.js';
import { allRequired, authedErrors, noQuery, nullable, okResponse } from './schemas.js';

export interface AccountRouteDeps {
  billing: Client<typeof BillingService>;
  jobs: Client<typeof JobsService>;
  limits: { requestsPerMinute: number; maxFileSizeMb: number; parallelJobs: number };
}

const accountResponse = okResponse("The account's plan, this month's usage, its limits and jobs in progress.", {
  account_id: { type: 'string' },
  plan: { type: 'string', enum: ['pay-as-you-go'] },
  quota: allRequired({
    used_gb_sec: { type: 'number' },
    limit_gb_sec: nullable('number'),
    remaining_gb_sec: nullable('number'),
    year_month: { type: 'string' },
    resets_on: { type: 'string' },
  }),
  limits: allRequired({
    requests_per_minute: { type: 'integer' },
    max_file_size_mb: { type: 'integer' },
    parallel_jobs: { type: 'integer' },
  }),
  jobs: allRequired({ active: { type: 'integer' }, available_slots: { type: 'integer' } }),
});

export const accountRoutes: FastifyPluginAsyncJsonSchemaToTs<{ Options: AccountRouteDeps }> = async (app, deps) => {
  const schema = {
    tags: ['Account'],
    operationId: 'getAccount',
    summary: 'Read the account',
    querystring: noQuery,
    response: { 200: accountResponse, ...authedErrors() },
  } as const;
  app.get('/account', { schema }, async (req) => {
    const { accountId } = req.principal;
    const [quota, jobs] = await Promise.all([
      deps.billing.getQuota({ accountId }, rpcOptions(req)),
      deps.jobs.countActiveJobs({ accountId }, rpcOptions(req)),
    ]);
    return {
      ok: true,
      account_id: accountId,
      plan: 'pay-as-you-go' as const,
      quota: {
        used_gb_sec: quota.usedGbSec,
        limit_gb_sec: null,
        remaining_gb_sec: null,
        year_month: quota.yearMonth,
        resets_on: quota.resetsOn,
      },
      limits: {
        requests_per_minute: deps.limits.requestsPerMinute,
        max_file_size_mb: deps.limits.maxFileSizeMb,
        parallel_jobs: deps.limits.parallelJobs,
      },
      jobs: { active: jobs.active, available_slots: Math.max(0, jobs.limit - jobs.active) },
    };
  });
};
