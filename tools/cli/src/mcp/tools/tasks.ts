// Running FFmpeg tasks (sync, or queued) and ffprobe: the task's shape checked here only as far as
// its structure goes; every option, filter and limit is judged by the service, whose sentence
// comes back as the tool error.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { MediaClient, Task } from '@media/client';
import { DESCRIPTIONS } from '../descriptions.js';
import { guarded, links, MAX_RESULT_CHARS, ok, resultItem, usageShape } from '../results.js';

const args = z.array(z.string());

// Strict objects, as the API's own schema: a misspelt field is refused, not silently dropped.
const task = z.strictObject({
  inputs: z
    .array(
      z.strictObject({
        file_path: z.string().describe('"<dir_id>/<file_name>" of an uploaded file, or a public https:// URL'),
        options: args.optional().describe('FFmpeg options before this input\'s -i, one argument per item: ["-ss", "5"]'),
      }),
    )
    .min(1)
    .describe('the inputs, in order ([0], [1]... in filter_complex); uploaded ones all from one directory'),
  outputs: z
    .array(
      z.strictObject({
        file: z.string().describe('the output file name, no directory: out.mp4, thumb_%03d.png'),
        options: args.optional().describe('FFmpeg output options, one argument per item: ["-c:v", "libx264", "-crf", "23"]'),
        maps: args.optional().describe('-map arguments without "-map": ["0:v:0", "[v]"]'),
      }),
    )
    .min(1),
  filter_complex: z.string().optional().describe('one -filter_complex graph: "[0:v]scale=640:-2[v]"'),
  output_dir_id: z.string().optional().describe("a directory of the account for the outputs (default: the inputs' directory)"),
});

export function registerTaskTools(server: McpServer, media: MediaClient) {
  server.registerTool(
    'run_task',
    {
      title: 'Run an FFmpeg task',
      description: DESCRIPTIONS.run_task,
      inputSchema: {
        task,
        async: z.boolean().default(false).describe('queue it and answer a job_id (follow with job_status)'),
        webhook_url: z.string().optional().describe('with async: a public https:// URL the service POSTs the result to'),
      },
      outputSchema: {
        status: z.enum(['completed', 'pending']),
        job_id: z.string().optional().describe('async: follow it with job_status'),
        request_id: z.string(),
        result: z.array(resultItem).optional(),
        usage: usageShape.optional(),
        amount_usd: z.number().optional(),
      },
      annotations: { destructiveHint: false, openWorldHint: true },
    },
    guarded(async ({ task, async, webhook_url }) => {
      if (webhook_url && !async) throw new Error('webhook_url goes with async: true');
      if (async) {
        const queued = await media.submit(task as Task, { webhookUrl: webhook_url });
        return ok({ status: 'pending', job_id: queued.job_id!, request_id: queued.request_id! });
      }
      const done = await media.process(task as Task);
      return ok({
        status: 'completed',
        request_id: done.request_id,
        result: links(done.result),
        usage: done.usage,
        amount_usd: done.amount_usd,
      });
    }),
  );

  server.registerTool(
    'probe_media',
    {
      title: 'Probe a file with ffprobe',
      description: DESCRIPTIONS.probe_media,
      inputSchema: {
        file_path: z.string().describe('"<dir_id>/<file_name>" of a stored file, or a public https:// URL'),
        probe: z
          .record(z.string(), z.unknown())
          .optional()
          .describe(
            'sections mapped to entry names, plus controls: {"format": ["duration"], "streams": ["codec_name", "width", "height"]}',
          ),
      },
      annotations: { readOnlyHint: true, openWorldHint: true },
    },
    guarded(async ({ file_path, probe }) => {
      const res = await media.probe(file_path, probe);
      const json = JSON.stringify(res.result);
      const fits = json.length <= MAX_RESULT_CHARS;
      return ok({
        request_id: res.request_id,
        ...(fits
          ? { result: res.result }
          : {
              result_truncated: `the result has ${json.length} characters; the first ${MAX_RESULT_CHARS} follow. Ask for fewer entries or a shorter read_intervals.`,
              result_preview: json.slice(0, MAX_RESULT_CHARS),
            }),
        usage: res.usage,
        amount_usd: res.amount_usd,
      });
    }),
  );
}
