import type { Interceptor } from '@connectrpc/connect';
import { currentRequestId, REQUEST_ID_HEADER, requestContext } from './context.js';
import { toConnectError } from './errors.js';
import type { Logger } from './logger.js';
import { randomString } from './ids.js';

/** Server side: adopt the caller's request id (or make one), turn domain errors into Connect errors, log faults. */
export function serverInterceptor(logger: Logger): Interceptor {
  return (next) => async (req) => {
    const requestId = req.header.get(REQUEST_ID_HEADER) || `rpc_${randomString(16)}`;
    return requestContext.run({ requestId }, async () => {
      try {
        return await next(req);
      } catch (err) {
        const connectErr = toConnectError(err);
        if (connectErr.cause !== undefined && connectErr.cause !== err) {
          logger.error({ err, rpc: req.url }, 'unexpected error in RPC handler');
        } else if (connectErr.code === 13 /* Internal */) {
          logger.warn({ rpc: req.url, error: connectErr.rawMessage }, 'RPC failed');
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
