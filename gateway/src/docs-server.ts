// The API reference on a listener of its own (DOCS_PORT), never on the gateway's paths:
// Swagger UI at / (served from the package's own files, no CDN) and the document at /openapi.json.
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import Fastify, { type FastifyBaseLogger } from 'fastify';
import { createLogger, localUrl } from '@media/platform';

export interface DocsOptions {
  port: number;
  host: string;
  /** The gateway's OpenAPI document (`app.swagger()`). */
  document: Record<string, unknown>;
  /** The gateway's URL as clients reach it: the document's server. */
  apiUrl: string;
  logLevel?: string;
}

export interface RunningDocs {
  url: string;
  close(): Promise<void>;
}

export async function startDocs(opts: DocsOptions): Promise<RunningDocs> {
  const document = { ...opts.document, servers: [{ url: opts.apiUrl }] };
  const app = Fastify({
    loggerInstance: createLogger('docs', opts.logLevel ?? 'info') as FastifyBaseLogger,
    // On close every connection is cut: a browser still fetching the 1.4 MB bundle, or one that
    // stopped reading it, must not hold the process's shutdown.
    forceCloseConnections: true,
  });
  await app.register(swagger, { mode: 'static', specification: { document: document as never } });
  await app.register(swaggerUi, {
    routePrefix: '/',
    // The gateway answers no cross-origin browser calls (CORS), so "Try it out" could only fail:
    // the reference shows each call; curl, the client or the CLI make it.
    uiConfig: { supportedSubmitMethods: [], deepLinking: true },
  });
  app.get('/openapi.json', { schema: { hide: true } }, async (_req, reply) => reply.type('application/json').send(document));
  const address = await app.listen({ port: opts.port, host: opts.host });
  return { url: localUrl(opts.host, Number(new URL(address).port)), close: () => app.close() };
}
