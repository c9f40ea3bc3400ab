// `media mcp --http <port>`: Streamable HTTP on a listener of its own, stateless (a server per
// POST). Each caller authenticates with its own API key (Authorization: Bearer mk_... or the
// API's Basic forms), checked against the API and used for that caller's calls: this process
// holds no key of its own.
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { MediaApiError, MediaClient } from '@media/client';
import { createMcpServer } from './server.js';

export const MCP_PATH = '/mcp';
/** A key the API accepted is trusted this long: the API's own revocation takes up to 60 s too. */
const KEY_TRUST_MS = 60_000;

export interface HttpOptions {
  apiUrl: string;
  port: number;
  host: string;
  /** Lines for the operator (stderr). */
  log: (line: string) => void;
}

export async function serveHttp(opts: HttpOptions): Promise<void> {
  const trusted = new Map<string, number>();
  const clientFor = (authorization: string) =>
    new MediaClient({
      baseUrl: opts.apiUrl,
      apiKey: authorization,
      retry: { onRetry: ({ status, waitSec }) => opts.log(`${status || 'no answer'}: retrying in ${waitSec} s`) },
    });

  /** The caller's client, or the API's refusal of its key (401, 403, 429 with the API's sentence). */
  async function authenticate(req: IncomingMessage): Promise<MediaClient | Refusal> {
    const header = req.headers.authorization?.trim() ?? '';
    const bearer = /^bearer\s+(\S+)$/i.exec(header);
    const authorization = bearer ? bearer[1]! : /^basic\s/i.test(header) ? header : '';
    if (!authorization) return { status: 401, message: 'Authorization Header Required: send Authorization: Bearer <your API key>' };
    const media = clientFor(authorization);
    const id = createHash('sha256').update(authorization).digest('hex');
    if ((trusted.get(id) ?? 0) > Date.now()) return media;
    try {
      await media.account();
    } catch (err) {
      // The key's own answer (unknown, no card, suspended, over its rate): the caller's to fix.
      if (err instanceof MediaApiError && err.status >= 400 && err.status < 500) return { status: err.status, message: err.error };
      throw err;
    }
    trusted.set(id, Date.now() + KEY_TRUST_MS);
    return media;
  }

  async function handle(req: IncomingMessage, res: ServerResponse) {
    if (new URL(req.url ?? '/', 'http://x').pathname !== MCP_PATH) return reject(res, 404, `Not found: the MCP endpoint is ${MCP_PATH}`);
    // Stateless: no session to stream to (GET) or end (DELETE).
    if (req.method !== 'POST') return reject(res, 405, 'Only POST: this server keeps no sessions', { allow: 'POST' });
    const media = await authenticate(req);
    if (!(media instanceof MediaClient))
      return reject(res, media.status, media.message, media.status === 401 ? { 'www-authenticate': 'Bearer' } : {});
    const server = createMcpServer(media, { remote: true });
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res);
  }

  const listener = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      opts.log(`mcp: ${err instanceof Error ? err.message : String(err)}`);
      if (!res.headersSent) reject(res, 502, `The media API could not be reached: ${err instanceof Error ? err.message : String(err)}`);
      else res.end();
    });
  });
  await new Promise<void>((resolve, fail) => {
    listener.once('error', fail);
    listener.listen(opts.port, opts.host, resolve);
  });
  const { port } = listener.address() as { port: number };
  const host = opts.host.includes(':') ? `[${opts.host}]` : opts.host;
  opts.log(`media mcp: Streamable HTTP on http://${host}:${port}${MCP_PATH}`);
  await new Promise<void>((resolve) => listener.once('close', resolve));
}

interface Refusal {
  status: number;
  message: string;
}

/** A JSON-RPC error answer, as MCP clients read a refused HTTP request. */
function reject(res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}) {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32001, message }, id: null }));
}
