// One place turns anything thrown into the spec's error shape {ok:false, error}, with the status
// from the platform's error table.
import fp from 'fastify-plugin';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { Code, ConnectError } from '@connectrpc/connect';
import { type DomainError, Errors, toHttpError } from '@media/platform';
import { validationMessage } from './validation-message.js';
import { logCompleted } from './access-log.js';

/** The router's limit on one path segment: a file name may be 255 characters, several bytes
 * each once percent-encoded. */
export const MAX_PARAM_LENGTH = 4096;

function fromFastify(err: FastifyError): DomainError | undefined {
  switch (err.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return Errors.bodyTooLarge();
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return Errors.bodyRequired();
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return Errors.invalidJson();
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return Errors.invalidRequest('Request body must be JSON (Content-Type: application/json)');
    case 'FST_ERR_BAD_URL':
      return Errors.badUrlEncoding();
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return Errors.pathSegmentTooLong(MAX_PARAM_LENGTH);
  }
  if (err.validation) return Errors.invalidRequest(validationMessage(err.validation, err.validationContext));
  if (err instanceof SyntaxError) return Errors.invalidJson();
  return undefined;
}

/** Anything thrown, answered in the spec's shape with the status of the platform's error table. */
function sendError(err: FastifyError, req: FastifyRequest, reply: FastifyReply, unavailableRetryAfterSec?: number): FastifyReply {
  const http = toHttpError(fromFastify(err) ?? err);
  // A call cancelled because the client hung up (rpcOptions) is not a fault; no one reads the answer.
  const thrown: unknown = err;
  if (thrown instanceof ConnectError && thrown.code === Code.Canceled) req.log.info('client closed the connection; its RPC was cancelled');
  else if (http.internal) req.log.error({ err }, 'request failed');
  const retryAfter = http.retryAfterSec ?? (http.status === 503 ? unavailableRetryAfterSec : undefined);
  if (retryAfter !== undefined) reply.header('Retry-After', String(retryAfter));
  return reply.status(http.status).type('application/json').send({ ok: false, error: http.message });
}

export const errorsPlugin = fp(async (app, opts: { unavailableRetryAfterSec: number }) => {
  app.setErrorHandler(async (err: FastifyError, req, reply) => sendError(err, req, reply, opts.unavailableRetryAfterSec));
  app.setNotFoundHandler(async (req, reply) => {
    const err = Errors.routeNotFound(req.method, req.url.split('?')[0]!);
    return reply.status(err.status).send({ ok: false, error: err.message });
  });
});

/**
 * Fastify's `frameworkErrors`: the router refuses some paths before any hook runs (bad
 * percent-encoding, a segment over MAX_PARAM_LENGTH) and would answer them in its own shape,
 * without X-Request-Id or an access-log line. They are answered like any other error, the id
 * set and the line written here.
 */
export function frameworkErrorHandler(err: FastifyError, req: FastifyRequest, reply: FastifyReply): void {
  sendError(err, req, reply.header('X-Request-Id', req.id));
  logCompleted(req, reply);
}
