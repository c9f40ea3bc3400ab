// Every spec endpoint needs a key. Auth decides (401 -> 403 -> 429) the first time this gateway
// sees a key; after that the gateway admits the key on that verdict and counts its rate on the
// shared counts (auth/local-rate.ts), so a request with a known key makes no call to Auth.
// Revocations and account status changes reach the gateway as events and evict at once.
import fp from 'fastify-plugin';
import type { Client } from '@connectrpc/connect';
import type { AuthService } from '@media/proto/media/auth/v1/auth_pb.js';
import type { EventBus } from '@media/eventbus';
import { Errors, Events, fromTimestamp, subscribeEvent } from '@media/platform';
import { createLocalRate } from '../auth/local-rate.js';
import { createVerdictCache } from '../auth/verdicts.js';
import type { RouteFlags } from './body.js';
import { rpcOptions } from './request-id.js';

declare module 'fastify' {
  interface FastifyRequest {
    principal: { accountId: string; keyId: string };
  }
}

export interface AuthPluginOptions {
  auth: Client<typeof AuthService>;
  bus: EventBus;
  requestsPerMinute: number;
  /** How long a verdict is reused when no event evicts it (0: ask Auth on every request). */
  cacheTtlMs: number;
  /** How often admitted requests are reported to Auth. */
  rateSyncMs: number;
}

export const authPlugin = fp(async (app, opts: AuthPluginOptions) => {
  const verdicts = createVerdictCache({ ttlMs: opts.cacheTtlMs });
  const rate = createLocalRate({
    limit: opts.requestsPerMinute,
    syncMs: opts.rateSyncMs,
    report: async (admitted) => {
      const res = await opts.auth.countRequests({ admitted: admitted.map((a) => ({ ...a, window: BigInt(a.window) })) });
      return res.counts.map((c) => ({ keyId: c.keyId, window: Number(c.window), previous: c.previous, current: c.current }));
    },
    onReportError: (err) => app.log.warn({ err }, 'could not report request counts to Auth; kept for the next report'),
  });
  // Broadcast (no durable name): every gateway replica evicts.
  const subscriptions = await Promise.all([
    subscribeEvent(opts.bus, Events.keyRevoked, async (e) => verdicts.forgetKey(e.keyId)),
    subscribeEvent(opts.bus, Events.accountStatusChanged, async (e) => verdicts.forgetAccount(e.accountId)),
  ]);
  app.addHook('onClose', async () => {
    await Promise.all(subscriptions.map((s) => s.stop()));
    await rate.close();
  });

  app.decorateRequest('principal', { getter: () => ({ accountId: '', keyId: '' }) });
  app.addHook('onRequest', async (req, reply) => {
    if (req.is404 || (req.routeOptions.config as RouteFlags | undefined)?.public) return;
    const authorization = req.headers.authorization ?? '';
    let who = verdicts.get(authorization);
    let decision = who && rate.admit(who.keyId);
    if (!who || !decision) {
      const res = await opts.auth.authenticate({ authorization }, rpcOptions(req));
      who = { accountId: res.accountId, keyId: res.keyId, keyExpiresAt: fromTimestamp(res.keyExpiresAt)?.getTime() };
      if (res.rate) {
        verdicts.set(authorization, who);
        rate.seed({ keyId: res.keyId, window: Number(res.rate.window), previous: res.rate.previous, current: res.rate.current });
      }
      decision = { allowed: true, remaining: res.rateLimitRemaining, retryAfterSec: res.rateLimitResetSeconds };
    }
    if (!decision.allowed) throw Errors.rateLimited(decision.retryAfterSec);
    Object.defineProperty(req, 'principal', { value: { accountId: who.accountId, keyId: who.keyId } });
    reply.header('X-RateLimit-Limit', String(opts.requestsPerMinute));
    reply.header('X-RateLimit-Remaining', String(decision.remaining));
    reply.header('X-RateLimit-Reset', String(decision.retryAfterSec));
  });
});
