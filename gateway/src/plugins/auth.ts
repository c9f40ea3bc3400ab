// Every spec endpoint needs a key. The Auth service decides (401 -> 403 -> 429, rate counted
// there so several gateways share one count); the gateway only forwards the header.
import fp from 'fastify-plugin';
import type { Client } from '@connectrpc/connect';
import type { AuthService } from '@media/proto/media/auth/v1/auth_pb.js';
import type { RouteFlags } from './body.js';
import { rpcOptions } from './request-id.js';

declare module 'fastify' {
  interface FastifyRequest {
    principal: { accountId: string; keyId: string };
  }
}

export const authPlugin = fp(async (app, opts: { auth: Client<typeof AuthService>; requestsPerMinute: number }) => {
  app.decorateRequest('principal', { getter: () => ({ accountId: '', keyId: '' }) });
  app.addHook('onRequest', async (req, reply) => {
    if (req.is404 || (req.routeOptions.config as RouteFlags | undefined)?.public) return;
    const who = await opts.auth.authenticate({ authorization: req.headers.authorization ?? '' }, rpcOptions(req));
    Object.defineProperty(req, 'principal', { value: { accountId: who.accountId, keyId: who.keyId } });
    reply.header('X-RateLimit-Limit', String(opts.requestsPerMinute));
    reply.header('X-RateLimit-Remaining', String(who.rateLimitRemaining));
    reply.header('X-RateLimit-Reset', String(who.rateLimitResetSeconds));
  });
});
