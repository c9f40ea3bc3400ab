// `media mcp`: the media API as MCP tools over stdio, on the typed client. stdout carries the
// protocol only; anything else goes to stderr.
import { createRequire } from 'node:module';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { MediaClient } from '@media/client';
import { SERVER_INSTRUCTIONS } from './descriptions.js';
import { registerFileTools } from './tools/files.js';
import { registerJobTools } from './tools/jobs.js';
import { registerPolicyTools } from './tools/policy.js';
import { registerTaskTools } from './tools/tasks.js';
import { registerUsageTools } from './tools/usage.js';

const { version } = createRequire(import.meta.url)('../../package.json') as { version: string };

/** An MCP server whose tools call the API through `media`. */
export function createMcpServer(media: MediaClient): McpServer {
  const server = new McpServer({ name: 'media', version }, { instructions: SERVER_INSTRUCTIONS });
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
