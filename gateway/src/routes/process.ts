// POST /ffmpeg/process: read the task's JSON into the proto Task here (the spec's exact texts for
// its shape); Jobs plans it once (every other refusal comes back from there) and runs it.
import type { FastifyPluginAsyncJsonSchemaToTs } from '@fastify/type-provider-json-schema-to-ts';
import type { Client } from '@connectrpc/connect';
import type { JobsService } from '@media/proto/media/jobs/v1/jobs_pb.js';
import { resultItemJson, usageJson } from '@media/platform';
import { readTaskRequest } from '@media/media';
import type { RouteFlags } from '../plugins/body.js';
import { rpcOptions } from '../plugins/request-id.js';
import { taskRequestSchema } from '../task-schema.js';
import { authedErrors, chargedResponse, noQuery, resultItemSchema } from './schemas.js';

const processResponse = chargedResponse('The outputs with download URLs (valid 1 hour) and what was charged.', {
  type: 'array',
  items: resultItemSchema,
});

const postFlags: RouteFlags = { bodyRequired: true, idempotent: true };

/** An everyday task, the example of both processing endpoints. */
export const TASK_EXAMPLE = {
  task: {
    inputs: [{ file_path: 'dir_abc123/input.mp4' }],
    outputs: [{ file: 'output.mp4', options: ['-c:v', 'libx264', '-crf', '23', '-c:a', 'aac'] }],
  },
};

/**
 * The route validates only that the body is an object (readTaskRequest answers with the spec's
 * sentences); the document shows the task's whole shape.
 */
export const documentTaskBody =
  (opts: { allowWebhook?: boolean } = {}) =>
  ({ schema, url }: { schema: object; url: string }) => ({
    schema: { ...schema, body: { ...taskRequestSchema(opts), examples: [TASK_EXAMPLE] } },
    url,
  });

export const processRoutes: FastifyPluginAsyncJsonSchemaToTs<{ Options: { jobs: Client<typeof JobsService> } }> = async (app, { jobs }) => {
  app.post(
    '/ffmpeg/process',
    // The body's shape is read by readTaskRequest (the spec's texts); Jobs plans the task.
    {
      config: { ...postFlags, swaggerTransform: documentTaskBody() },
      schema: {
        tags: ['Processing'],
        operationId: 'processSync',
        summary: 'Run an FFmpeg task and wait for its outputs',
        description:
          'Charged when it succeeds. If the service is too busy to start it now: 503 with Retry-After; or use the async endpoint.',
        querystring: noQuery,
        body: { type: 'object' },
        response: { 200: processResponse, ...authedErrors(404) },
      },
    },
    async (req, reply) => {
      const { task } = readTaskRequest(req.body);
      const { accountId, keyId } = req.principal;
      const res = await jobs.processSync({ accountId, keyId, task }, rpcOptions(req, reply));
      return {
        ok: true,
        result: res.result.map(resultItemJson),
        usage: usageJson(res.usage),
        request_id: res.requestId,
        amount_usd: res.amountUsd,
      };
    },
  );
};
