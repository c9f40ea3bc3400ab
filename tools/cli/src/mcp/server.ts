// `media mcp`: the media API as MCP tools, on the typed client. Over stdio, stdout carries the
// protocol only; anything else goes to stderr.
import { createRequire } from 'node:module';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { MediaClient } from '@media/client';
import type { ResumeOptions } from '@media/client/node';
import { REMOTE_INSTRUCTIONS, SERVER_INSTRUCTIONS } from './descriptions.js';
import { registerFileTools, registerUploadTool } from './tools/files.js';
import { registerJobTools } from './tools/jobs.js';
import { registerPolicyTools } from './tools/policy.js';
import { registerTaskTools } from './tools/tasks.js';
import { registerUsageTools } from './tools/usage.js';

const { version } = createRequire(import.meta.url)('../../package.json') as { version: string };

export interface McpServerOptions {
  /** For callers on other hosts (HTTP): no tool reads this host's files or fetches URLs from it. */
  remote?: boolean;
  /** Where upload_file remembers its local-file uploads to resume them (the CLI's record). */
  resume?: (media: MediaClient) => Promise<ResumeOptions | undefined>;
}

/** An MCP server whose tools call the API through `media`. */
export function createMcpServer(media: MediaClient, opts: McpServerOptions = {}): McpServer {
  const instructions = opts.remote ? `${SERVER_INSTRUCTIONS}\n${REMOTE_INSTRUCTIONS}` : SERVER_INSTRUCTIONS;
  const server = new McpServer({ name: 'media', version }, { instructions });
  if (!opts.remote) registerUploadTool(server, media, opts.resume);
  registerFileTools(server, media);
  registerTaskTools(server, media);
  registerJobTools(server, media);
  registerUsageTools(server, media);
  registerPolicyTools(server);
  return server;
}

/** Serves on stdin/stdout until the client closes stdin. */
export async function serveStdio(media: MediaClient, opts: Pick<McpServerOptions, 'resume'> = {}): Promise<void> {
  const server = createMcpServer(media, opts);
  const closed = new Promise<void>((resolve) => {
    server.server.onclose = resolve;
  });
  await server.connect(new StdioServerTransport());
  process.stdin.once('end', () => void server.close());
  await closed;
}
