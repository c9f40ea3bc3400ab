import { Code, type ConnectError, type Interceptor } from '@connectrpc/connect';
import { mapStreamErrors } from './call-stream.js';
import { currentRequestId, REQUEST_ID_HEADER, requestContext } from './context.js';
import { toConnectError } from './errors.js';
import type { Logger } from './logger.js';
import { randomString } from './ids.js';

/**
 * Server side: adopt the caller's request id (or make one) and answer it in the response's
 * headers (a gRPC client's metadata, errors included), turn domain errors into Connect
 * errors (a dependency down -> UNAVAILABLE with retry-after), log faults. Server-streaming
 * handlers run as their messages are read, after this returns: their errors are mapped as they
 * surface from the stream.
 */
export function serverInterceptor(logger: Logger): Interceptor {
  return (next) => async (req) => {
    const requestId = req.header.get(REQUEST_ID_HEADER) || `rpc_${randomString(16)}`;
    return requestContext.run({ requestId }, async () => {
      const started = performance.now();
      const fail = (err: unknown): ConnectError => {
        const connectErr = toConnectError(err);
        const where = { rpc: req.method.name, api: req.service.typeName, ms: Math.round(performance.now() - started) };
        if (connectErr.cause !== undefined && connectErr.cause !== err) {
          logger.error({ err, ...where }, 'unexpected error in RPC handler');
        } else if (connectErr.code === Code.Internal) {
          logger.warn({ ...where, error: connectErr.rawMessage }, 'rpc failed');
        } else {
          logger.debug({ ...where, code: Code[connectErr.code], error: connectErr.rawMessage }, 'rpc answered with an error');
        }
        connectErr.metadata.set(REQUEST_ID_HEADER, requestId);
        return connectErr;
      };
      try {
        const res = await next(req);
        res.header.set(REQUEST_ID_HEADER, requestId);
        logger.debug({ rpc: req.method.name, api: req.service.typeName, ms: Math.round(performance.now() - started) }, 'rpc served');
        return mapStreamErrors(res, (err) => requestContext.run({ requestId }, () => fail(err)));
      } catch (err) {
        throw fail(err);
      }
    });
  };
}

/** Client side: pass the current request id on to the next service. */
export const requestIdClientInterceptor: Interceptor = (next) => async (req) => {
  const requestId = currentRequestId();
  if (requestId && !req.header.has(REQUEST_ID_HEADER)) req.header.set(REQUEST_ID_HEADER, requestId);
  return next(req);
};
