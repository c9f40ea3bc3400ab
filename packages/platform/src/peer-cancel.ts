// A call the other side ended that we did not cancel is a transport failure. When a service shuts
// down or its connection closes cleanly mid-call (a rolling restart, a proxy dropping the
// connection), connect-node reports the HTTP/2 stream's CANCEL as Code.Canceled, which would
// reach users as a 500 and make async work fail instead of waiting for the service to return.
import { Code, ConnectError, type Interceptor } from '@connectrpc/connect';
import { mapStreamErrors } from './call-stream.js';

export const peerCancelInterceptor: Interceptor = (next) => async (req) => {
  const asUnavailable = (err: unknown): unknown =>
    err instanceof ConnectError && err.code === Code.Canceled && !req.signal.aborted
      ? new ConnectError(`${req.service.typeName} closed the call: ${err.rawMessage}`, Code.Unavailable, undefined, undefined, err)
      : err;
  try {
    return mapStreamErrors(await next(req), asUnavailable);
  } catch (err) {
    throw asUnavailable(err);
  }
};
