// Jobs: status with progress (optionally waiting for the end), cancel, the list.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { FINISHED_STATES, type Job, type MediaClient } from '@media/client';
import { DESCRIPTIONS } from '../descriptions.js';
import { guarded, links, ok, resultItem, usageShape } from '../results.js';

const STATES = ['pending', 'processing', 'completed', 'failed', 'cancelled'] as const;
/** One call may wait this long: under the 60 s a client's request commonly may take. */
const MAX_WAIT_SEC = 50;
const POLL_MS = 1000;

const progress = z.object({
  percent: z.number().describe('0 while pending, 100 once completed'),
  fps: z.number().optional(),
  speed: z.number().optional().describe('media seconds per second'),
  eta_sec: z.number().nullable().optional(),
});

export function registerJobTools(server: McpServer, media: MediaClient) {
  server.registerTool(
    'job_status',
    {
      title: 'Job status and progress',
      description: DESCRIPTIONS.job_status,
      inputSchema: {
        job_id: z.string(),
        wait_sec: z
          .number()
          .min(0)
          .max(MAX_WAIT_SEC)
          .default(0)
          .describe(`wait up to this many seconds (at most ${MAX_WAIT_SEC}) for the job to end`),
      },
      outputSchema: {
        job_id: z.string(),
        status: z.enum(STATES),
        progress: progress.optional(),
        result: z.array(resultItem).optional(),
        usage: usageShape.optional(),
        amount_usd: z.number().optional(),
        error: z.string().optional(),
      },
      annotations: { readOnlyHint: true },
    },
    guarded(async ({ job_id, wait_sec }) => {
      const deadline = Date.now() + wait_sec * 1000;
      let job = await media.job(job_id);
      while (!ended(job) && Date.now() + POLL_MS <= deadline) {
        await new Promise((r) => setTimeout(r, POLL_MS));
        job = await media.job(job_id);
      }
      return ok(summary(job));
    }),
  );

  server.registerTool(
    'cancel_job',
    {
      title: 'Cancel a pending job',
      description: DESCRIPTIONS.cancel_job,
      inputSchema: { job_id: z.string() },
      outputSchema: { job_id: z.string(), message: z.string() },
      annotations: { destructiveHint: true, idempotentHint: true },
    },
    guarded(async ({ job_id }) => {
      const { message } = await media.cancel(job_id);
      return ok({ job_id, message: message ?? `Job ${job_id} cancelled.` });
    }),
  );

  server.registerTool(
    'list_jobs',
    {
      title: 'List jobs',
      description: DESCRIPTIONS.list_jobs,
      inputSchema: {
        status: z
          .string()
          .optional()
          .describe(`comma-separated: ${STATES.join(',')}`),
        limit: z.number().int().optional().describe('1 to 100 (default 20)'),
        offset: z.number().int().optional(),
        sort: z.enum(['created_at_desc', 'created_at_asc']).optional(),
      },
      outputSchema: {
        jobs: z.array(z.record(z.string(), z.unknown())),
        pagination: z.object({ total: z.number(), limit: z.number(), offset: z.number(), has_more: z.boolean() }),
      },
      annotations: { readOnlyHint: true },
    },
    guarded(async (query) => {
      const { jobs, pagination } = await media.jobs(query);
      return ok({ jobs: jobs ?? [], pagination: pagination as never });
    }),
  );
}

function ended(job: Job) {
  return (FINISHED_STATES as readonly string[]).includes(job.status ?? '');
}

/** The job as an agent needs it: progress always (0 pending, 100 completed), links, the error. */
function summary(job: Job) {
  const status = job.status!;
  const progress =
    status === 'completed'
      ? { percent: 100, eta_sec: 0 }
      : status === 'processing'
        ? { percent: 0, ...job.progress }
        : status === 'pending'
          ? { percent: 0 }
          : undefined;
  return {
    job_id: job.job_id!,
    status,
    ...(progress ? { progress } : {}),
    ...(status === 'completed' ? { result: links(job.result), usage: job.usage, amount_usd: job.amount_usd } : {}),
    ...(job.error ? { error: job.error } : {}),
  };
}
