// POST /ffmpeg/process: read the task's JSON here (the spec's exact texts for its shape); Jobs
// plans it once (every other refusal comes back from there) and runs it.
import type { FastifyPluginAsyncJsonSchemaToTs } from '@fastify/type-provider-json-schema-to-ts';
import type { Client } from '@connectrpc/connect';
import type { JobsService } from '@media/proto/media/jobs/v1/jobs_pb.js';
import { resultItemJson, usageJson } from '@media/platform';
import { readTaskRequest, type TaskSpec } from '@media/media';
import type { RouteFlags } from '../plugins/body.js';
import { rpcOptions } from '../plugins/request-id.js';
import { noQuery, resultItemSchema, usageSchema } from './schemas.js';

const processResponse = {
  type: 'object',
  properties: {
    ok: { type: 'boolean' },
    result: { type: 'array', items: resultItemSchema },
    usage: usageSchema,
    request_id: { type: 'string' },
    amount_usd: { type: 'number' },
  },
} as const;

/** The task as the proto carries it: the same fields as the JSON. */
export function taskMessage(task: TaskSpec) {
  return {
    inputs: task.inputs.map((i) => ({ filePath: i.filePath, options: i.options })),
    outputs: task.outputs.map((o) => ({ file: o.file, options: o.options, maps: o.maps })),
    ...(task.filterComplex === undefined ? {} : { filterComplex: task.filterComplex }),
    ...(task.outputDirId === undefined ? {} : { outputDirId: task.outputDirId }),
  };
}

const bodyRequired: RouteFlags = { bodyRequired: true };

export const processRoutes: FastifyPluginAsyncJsonSchemaToTs<{ Options: { jobs: Client<typeof JobsService> } }> = async (app, { jobs }) => {
  app.post(
    '/ffmpeg/process',
    // The body's shape is read by readTaskRequest (the spec's texts); Jobs plans the task.
    { config: bodyRequired, schema: { querystring: noQuery, body: { type: 'object' }, response: { 200: processResponse } } },
    async (req, reply) => {
      const { task } = readTaskRequest(req.body);
      const { accountId, keyId } = req.principal;
      const res = await jobs.processSync({ accountId, keyId, task: taskMessage(task) }, rpcOptions(req, reply));
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
