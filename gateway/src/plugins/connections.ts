// Connection hygiene at the gateway (numbers in docs/operations/configuration.md): a connection over
// the per-address or total cap is answered in the API's error shape and closed; and an answer
// sent before the request's body was read (a 401, a 429, a refused body) closes the connection,
// so a body that was never going to be read is not read to its end.
import fp from 'fastify-plugin';
import { connectionRefusal } from '@media/platform';

export const connectionsPlugin = fp(async (app) => {
  app.addHook('onRequest', async (req, reply) => {
    const refusal = connectionRefusal(req.raw.socket);
    if (refusal) {
      reply.header('Connection', 'close');
      throw refusal;
    }
  });
  app.addHook('onSend', async (req, reply) => {
    if (!req.raw.complete) reply.header('Connection', 'close');
  });
});
