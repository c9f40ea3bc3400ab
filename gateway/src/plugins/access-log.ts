// One access-log line per request, written when the answer is sent (Fastify's default is two
// lines, one on arrival and one on completion, which costs about a third of a cheap request).
import type { FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { type Logger, metrics, recordsPerRequest } from '@media/platform';

/** The line itself; also written for the router's refusals, which no hook sees (errors.ts). */
export function logCompleted(req: FastifyRequest, reply: FastifyReply): void {
  // By route pattern (never the path, which holds ids); paths no route has are one label.
  if (recordsPerRequest()) {
    const route = req.is404 || !req.routeOptions?.url ? 'unmatched' : req.routeOptions.url;
    metrics.httpRequests.inc({ route, method: req.method, status: String(reply.statusCode) });
    metrics.httpDuration.observe({ route, method: req.method }, reply.elapsedTime / 1000);
  }
  if (!(req.log as Logger).isLevelEnabled('info')) return;
  req.log.info(
    {
      method: req.method,
      url: req.url,
      statusCode: reply.statusCode,
      ms: Math.round(reply.elapsedTime * 10) / 10,
      accountId: req.principal?.accountId,
    },
    'request completed',
  );
}

export const accessLogPlugin = fp(async (app) => {
  app.addHook('onResponse', async (req, reply) => logCompleted(req, reply));
});
