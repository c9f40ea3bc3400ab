import { Code, type Interceptor } from '@connectrpc/connect';
import { currentRequestId, REQUEST_ID_HEADER, requestContext } from './context.js';
import { toConnectError } from './errors.js';
import type { Logger } from './logger.js';
import { randomString } from './ids.js';

/** Server side: adopt the caller's request id (or make one), turn domain errors into Connect errors, log faults. */
export function serverInterceptor(logger: Logger): Interceptor {
  return (next) => async (req) => {
    const requestId = req.header.get(REQUEST_ID_HEADER) || `rpc_${randomString(16)}`;
    return requestContext.run({ requestId }, async () => {
      const started = performance.now();
      try {
        const res = await next(req);
        logger.debug({ rpc: req.method.name, api: req.service.typeName, ms: Math.round(performance.now() - started) }, 'rpc served');
        return res;
      } catch (err) {
        const connectErr = toConnectError(err);
        const where = { rpc: req.method.name, api: req.service.typeName, ms: Math.round(performance.now() - started) };
        if (connectErr.cause !== undefined && connectErr.cause !== err) {
          logger.error({ err, ...where }, 'unexpected error in RPC handler');
        } else if (connectErr.code === Code.Internal) {
          logger.warn({ ...where, error: connectErr.rawMessage }, 'rpc failed');
        } else {
          logger.debug({ ...where, code: Code[connectErr.code], error: connectErr.rawMessage }, 'rpc answered with an error');
        }
        throw connectErr;
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
