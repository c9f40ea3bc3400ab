// connect-node's connectNodeAdapter (2.2.0) for our HTTP/2 servers (no HTTP/1, no path prefix,
// no fallback or context values: startConnectServer uses none), with one change: a failure to
// write an answer goes to our logger instead of console.error. Writing fails when the caller has
// gone (a cancelled call, a closed session), which is routine: a debug line. Anything else is an
// error in the JSON log with the rest, not a bare stack on stderr, and the stream is reset so the
// caller does not wait for an answer that will not come.
import { constants, type Http2ServerRequest, type Http2ServerResponse } from 'node:http2';
import { Code, ConnectError, createConnectRouter, type ConnectRouter, type Interceptor } from '@connectrpc/connect';
import {
  compressionBrotli,
  compressionGzip,
  universalRequestFromNodeRequest,
  universalResponseToNodeResponse,
} from '@connectrpc/connect-node';
import { uResponseNotFound } from '@connectrpc/connect/protocol';
import { REQUEST_ID_HEADER } from './context.js';
import type { Logger } from './logger.js';

export interface NodeHandlerOptions {
  routes: (router: ConnectRouter) => void;
  interceptors: Interceptor[];
  logger: Logger;
}

export function createNodeHandler(options: NodeHandlerOptions): (req: Http2ServerRequest, res: Http2ServerResponse) => void {
  const router = createConnectRouter({ interceptors: options.interceptors, acceptCompression: [compressionGzip, compressionBrotli] });
  options.routes(router);
  const paths = new Map(router.handlers.map((h) => [h.requestPath, h]));
  return (req, res) => {
    const handler = paths.get(req.url.split('?', 1)[0] ?? '');
    if (!handler) {
      res.writeHead(uResponseNotFound.status);
      res.end();
      return;
    }
    handler(universalRequestFromNodeRequest(req, res, undefined, undefined))
      .then((answer) => universalResponseToNodeResponse(answer, res))
      .catch((reason: unknown) => {
        if (ConnectError.from(reason).code === Code.Aborted) return; // as connect-node: already answered
        // Outside the interceptor's request context: the id is taken from the call itself.
        const where = { rpc: handler.method.name, api: handler.service.typeName, requestId: req.headers[REQUEST_ID_HEADER] };
        if (res.stream.destroyed) {
          options.logger.debug({ ...where, error: String(reason) }, 'the caller went away before the answer was written');
          return;
        }
        options.logger.error({ ...where, err: reason }, 'an RPC answer could not be written');
        res.stream.close(constants.NGHTTP2_INTERNAL_ERROR);
      });
  };
}
