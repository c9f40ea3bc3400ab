// `media mcp`: the media API as MCP tools, on the typed client. Over stdio, stdout carries the
// protocol only; anything else goes to stderr.
import { createRequire } from 'node:module';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { MediaClient } from '@media/client';
import { REMOTE_INSTRUCTIONS, SERVER_INSTRUCTIONS } from './descriptions.js';
import { registerFileTools, registerUploadTool } from './tools/files.js';
import { registerJobTools } from './tools/jobs.js';
import { registerPolicyTools } from './tools/policy.js';
import { registerTaskTools } from './tools/tasks.js';
import { registerUsageTools } from './tools/usage.js';

const { version } = createRequire(import.meta.url)('../../package.json') as { version: string };

/**
 * An MCP server whose tools call the API through `media`. `remote`: for callers on other hosts
 * (HTTP), so no tool reads this host's files or fetches URLs from it.
 */
export function createMcpServer(media: MediaClient, opts: { remote?: boolean } = {}): McpServer {
  const instructions = opts.remote ? `${SERVER_INSTRUCTIONS}\n${REMOTE_INSTRUCTIONS}` : SERVER_INSTRUCTIONS;
  const server = new McpServer({ name: 'media', version }, { instructions });
  if (!opts.remote) registerUploadTool(server, media);
  registerFileTools(server, media);
  registerTaskTools(server, media);
  registerJobTools(server, media);
  registerUsageTools(server, media);
  registerPolicyTools(server);
  return server;
}

/** Serves on stdin/stdout until the client closes stdin. */
export async function serveStdio(media: MediaClient): Promise<void> {
  const server = createMcpServer(media);
  const closed = new Promise<void>((resolve) => {
    server.server.onclose = resolve;
  });
  await server.connect(new StdioServerTransport());
  process.stdin.once('end', () => void server.close());
  await closed;
}
