// Every response, errors and 404s included, carries X-Request-Id; services receive it as metadata.
import fp from 'fastify-plugin';
import { REQUEST_ID_HEADER } from '@media/platform';

export const requestIdPlugin = fp(async (app) => {
  app.addHook('onRequest', async (req, reply) => {
    reply.header('X-Request-Id', req.id);
  });
});

/** Call options for an RPC made on behalf of a request. */
export const rpcOptions = (req: { id: string }) => ({ headers: { [REQUEST_ID_HEADER]: req.id } });
