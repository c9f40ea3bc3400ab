// Every spec endpoint needs a key. Auth decides (401 -> 403 -> 429) the first time this gateway
// sees a key; after that the gateway admits the key on that verdict and counts its rate on the
// shared counts (auth/local-rate.ts), so a request with a known key makes no call to Auth.
// Revocations and account status changes reach the gateway as events and evict at once; Auth's
// answer to each rate report also re-checks the keys reported, should an event be lost.
import type { FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { Client } from '@connectrpc/connect';
import type { AuthService } from '@media/proto/media/auth/v1/auth_pb.js';
import type { EventBus } from '@media/eventbus';
import { Errors, Events, fromTimestamp, subscribeEvent, type RateDecision } from '@media/platform';
import { createLocalRate, type RateTestDeps } from '../auth/local-rate.js';
import { createVerdictCache, type Verdict } from '../auth/verdicts.js';
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
  rateTestDeps?: RateTestDeps;
}

export const authPlugin = fp(async (app, opts: AuthPluginOptions) => {
  const verdicts = createVerdictCache({ ttlMs: opts.cacheTtlMs });
  const rate = createLocalRate({
    ...opts.rateTestDeps,
    limit: opts.requestsPerMinute,
    syncMs: opts.rateSyncMs,
    report: async (admitted) => {
      const res = await opts.auth.countRequests({ admitted: admitted.map((a) => ({ ...a, window: BigInt(a.window) })) });
      // Auth's answer also re-checks each key: keys in use stay known, revoked ones go at once.
      for (const c of res.counts) {
        if (c.refused) verdicts.forgetKey(c.keyId);
        else verdicts.confirm(c.keyId);
      }
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

  /** Auth checks and counts this request, and the gateway keeps its verdict and the key's counts. */
  async function askAuth(authorization: string, req: FastifyRequest): Promise<{ who: Verdict; decision: RateDecision }> {
    const res = await opts.auth.authenticate({ authorization }, rpcOptions(req));
    const who = { accountId: res.accountId, keyId: res.keyId, keyExpiresAt: fromTimestamp(res.keyExpiresAt)?.getTime() };
    if (res.rate) {
      verdicts.set(authorization, who);
      rate.seed({ keyId: res.keyId, window: Number(res.rate.window), previous: res.rate.previous, current: res.rate.current });
    }
    return { who, decision: { allowed: true, remaining: res.rateLimitRemaining, retryAfterSec: res.rateLimitResetSeconds } };
  }
  // Requests with a key Auth is being asked about wait for that answer instead of asking again
  // (a client opening with ten parallel requests costs one call), then count here.
  const asking = new Map<string, Promise<unknown>>();

  async function admit(authorization: string, req: FastifyRequest): Promise<{ who: Verdict; decision: RateDecision }> {
    for (;;) {
      const who = verdicts.get(authorization);
      const decision = who && rate.admit(who.keyId);
      if (who && decision) return { who, decision };
      const pending = asking.get(authorization);
      if (!pending) break;
      // Its failure (401, 403, 429, 503) is this request's answer too; on success, count here
      // (and if nothing was kept, an Auth without counts, the next turn asks Auth itself).
      await pending;
    }
    const asked = askAuth(authorization, req);
    asking.set(authorization, asked);
    try {
      return await asked;
    } finally {
      asking.delete(authorization);
    }
  }

  // A plain slot set per request (a defineProperty per request would slow every request object).
  app.decorateRequest('principal', null as unknown as FastifyRequest['principal']);
  app.addHook('onRequest', async (req, reply) => {
    if (req.is404 || (req.routeOptions.config as RouteFlags | undefined)?.public) return;
    const { who, decision } = await admit(req.headers.authorization ?? '', req);
    if (!decision.allowed) throw Errors.rateLimited(decision.retryAfterSec, opts.requestsPerMinute);
    req.principal = { accountId: who.accountId, keyId: who.keyId };
    reply.header('X-RateLimit-Limit', String(opts.requestsPerMinute));
    reply.header('X-RateLimit-Remaining', String(decision.remaining));
    reply.header('X-RateLimit-Reset', String(decision.retryAfterSec));
  });
});
