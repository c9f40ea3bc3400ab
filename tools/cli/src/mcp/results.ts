// Tool results: small JSON as text (for any client) and as structuredContent (for clients that
// read it), and failures as tool errors carrying the service's sentence, never protocol errors,
// so the agent reads the sentence and fixes its call.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { MediaApiError, type ResultItem } from '@media/client';

/** A result cut past this many characters of JSON: an agent's context is not a file store. */
export const MAX_RESULT_CHARS = 20_000;

export function ok(value: Record<string, unknown>): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(value, null, 1) }], structuredContent: value };
}

/** A failure as the agent should read it: "<status>: <sentence>" from the service, or what went wrong here. */
export function failed(err: unknown): CallToolResult {
  if (err instanceof MediaApiError) {
    const text = err.status ? `${err.status}: ${err.error}` : err.error;
    return {
      isError: true,
      content: [{ type: 'text', text: err.requestId ? `${text} (request ${err.requestId})` : text }],
    };
  }
  return { isError: true, content: [{ type: 'text', text: err instanceof Error ? err.message : String(err) }] };
}

/** Runs a tool body; any error becomes a tool error (isError), with the service's sentence. */
export function guarded<A>(body: (args: A) => Promise<CallToolResult>): (args: A) => Promise<CallToolResult> {
  return async (args) => {
    try {
      return await body(args);
    } catch (err) {
      return failed(err);
    }
  };
}

export const resultItem = z.object({
  file_name: z.string(),
  size_bytes: z.number(),
  download_url: z.string().describe('signed GET URL, valid 1 hour'),
});

export const usageShape = z.object({
  time_sec: z.number(),
  input_size_gb: z.number(),
  output_size_gb: z.number(),
  gb_sec: z.number(),
});

/** The links of a result, as the API gives them (file_name, size_bytes, download_url). */
export function links(items: readonly ResultItem[] | undefined) {
  return (items ?? []).map((r) => ({ file_name: r.file_name, size_bytes: r.size_bytes, download_url: r.download_url }));
}
