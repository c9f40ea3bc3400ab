// Every response, errors and 404s included, carries X-Request-Id; services receive it as metadata.
import fp from 'fastify-plugin';
import type { FastifyReply } from 'fastify';
import { Code, ConnectError } from '@connectrpc/connect';
import { REQUEST_ID_HEADER } from '@media/platform';

export const requestIdPlugin = fp(async (app) => {
  app.addHook('onRequest', async (req, reply) => {
    reply.header('X-Request-Id', req.id);
  });
});

/**
 * Call options for an RPC made on behalf of a request. With `reply`, the call is cancelled when
 * the client's connection closes before the answer was sent: a sync run or a probe the client no
 * longer waits for stops (its ffmpeg is killed) and is not charged. CANCELED is the client's doing,
 * not the service's, so it does not count against the service's breaker.
 */
export function rpcOptions(req: { id: string }, reply?: FastifyReply): { headers: Record<string, string>; signal?: AbortSignal } {
  const headers = { [REQUEST_ID_HEADER]: req.id };
  if (!reply) return { headers };
  const cancel = new AbortController();
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) cancel.abort(new ConnectError('the client closed the connection', Code.Canceled));
  });
  return { headers, signal: cancel.signal };
}
