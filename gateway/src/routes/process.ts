// POST /ffmpeg/process: validate the task's shape here (the spec's exact texts), run it in Jobs.
import type { FastifyPluginAsync } from 'fastify';
import type { Client } from '@connectrpc/connect';
import type { JobsService, Usage } from '@media/proto/media/jobs/v1/jobs_pb.js';
import { planTask, validateTaskShape, type ValidatedTask } from '@media/media';
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

/** The task as the proto carries it (inputs by file_path, outputs by file + options). */
export function taskMessage(task: ValidatedTask) {
  return {
    inputs: task.inputs.map((i) => ({ filePath: i.kind === 'url' ? i.url : i.filePath })),
    outputs: task.outputs.map((o) => ({ file: o.file, options: o.options })),
  };
}

export const usageJson = (u: Usage | undefined) => ({
  time_sec: u?.timeSec ?? 0,
  input_size_gb: u?.inputSizeGb ?? 0,
  output_size_gb: u?.outputSizeGb ?? 0,
  gb_sec: u?.gbSec ?? 0,
});

const bodyRequired: RouteFlags = { bodyRequired: true };

export const processRoutes: FastifyPluginAsync<{ jobs: Client<typeof JobsService> }> = async (app, { jobs }) => {
  app.post(
    '/ffmpeg/process',
    // The body's inner shape and the option policy are checked by validateTask (the spec's texts).
    { config: bodyRequired, schema: { querystring: noQuery, body: { type: 'object' }, response: { 200: processResponse } } },
    async (req, reply) => {
      const task = validateTaskShape(req.body);
      planTask(task); // refuses any option or filter before an RPC is made; Jobs checks again
      const { accountId, keyId } = req.principal;
      const res = await jobs.processSync({ accountId, keyId, task: taskMessage(task) }, rpcOptions(req, reply));
      return {
        ok: true,
        result: res.result.map((r) => ({ file_name: r.fileName, size_bytes: Number(r.sizeBytes), download_url: r.downloadUrl })),
        usage: usageJson(res.usage),
        request_id: res.requestId,
        amount_usd: res.amountUsd,
      };
    },
  );
};
