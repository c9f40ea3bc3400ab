// Idempotency-Key (IETF httpapi draft) on the spec's POSTs: a request sent again with the same key
// gets the first answer without doing the work again. The records are Auth's, so every gateway
// replica sees the same ones (docs/api/conventions.md#idempotency-key).
import fp from 'fastify-plugin';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Client } from '@connectrpc/connect';
import { stringify } from 'safe-stable-stringify';
import { type AuthService, BeginIdempotentResponse_Outcome as Outcome } from '@media/proto/media/auth/v1/auth_pb.js';
import { Errors, IDEMPOTENCY_LEASE_SEC, readIdempotencyKey, requestFingerprint } from '@media/platform';
import type { RouteFlags } from './body.js';
import { rpcOptions } from './request-id.js';

declare module 'fastify' {
  interface FastifyRequest {
    idempotency?: Held;
  }
}

interface Held {
  accountId: string;
  key: string;
  lease: string;
  renew: NodeJS.Timeout;
  done?: Promise<void>;
}

/** Answers worth replaying: the ones that did something. An error did nothing and charged
 * nothing, so the same key may simply try again. */
const stored = (status: number) => status >= 200 && status < 300;

export const idempotencyPlugin = fp(async (app, opts: { auth: Client<typeof AuthService> }) => {
  const { auth } = opts;

  function finish(req: FastifyRequest, answer?: { status: number; body: string }): Promise<void> {
    const held = req.idempotency!;
    held.done ??= (async () => {
      clearInterval(held.renew);
      const { accountId, key, lease } = held;
      await auth
        .finishIdempotent({ accountId, key, lease, store: answer !== undefined, ...answer }, rpcOptions(req))
        // Not stored: the key frees itself when its lease runs out, and a retry then runs again.
        .catch((err) => req.log.error({ err }, 'Idempotency-Key: could not record the answer'));
    })();
    return held.done;
  }

  app.addHook('preHandler', async (req: FastifyRequest, reply: FastifyReply) => {
    if (!(req.routeOptions.config as RouteFlags | undefined)?.idempotent) return;
    const key = readIdempotencyKey(req.headers['idempotency-key']);
    if (key === undefined) return;
    const { accountId } = req.principal;
    const fingerprint = requestFingerprint(req.method, req.routeOptions.url ?? req.url, stringify(req.body ?? null) ?? 'null');
    const begun = await auth.beginIdempotent({ accountId, key, fingerprint }, rpcOptions(req));
    switch (begun.outcome) {
      case Outcome.REPLAY:
        return reply.code(begun.status).header('Idempotent-Replayed', 'true').type('application/json; charset=utf-8').send(begun.body);
      case Outcome.MISMATCH:
        throw Errors.idempotencyKeyReused();
      case Outcome.STARTED: {
        const renew = setInterval(
          () => {
            auth.renewIdempotent({ accountId, key, lease: begun.lease }, rpcOptions(req)).catch(() => undefined);
          },
          (IDEMPOTENCY_LEASE_SEC * 1000) / 3,
        ).unref();
        req.idempotency = { accountId, key, lease: begun.lease, renew };
        return;
      }
      default:
        throw Errors.idempotencyInProgress();
    }
  });

  // Recorded before the answer leaves, so a replay sent after it arrives finds it.
  app.addHook('onSend', async (req, reply, payload) => {
    if (!req.idempotency) return payload;
    await finish(req, stored(reply.statusCode) && typeof payload === 'string' ? { status: reply.statusCode, body: payload } : undefined);
    return payload;
  });
  // A request that ended without an answer (the client went away) frees its key.
  app.addHook('onResponse', async (req) => {
    if (req.idempotency) await finish(req);
  });
  app.addHook('onRequestAbort', async (req) => {
    if (req.idempotency) await finish(req);
  });
});
