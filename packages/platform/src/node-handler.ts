// connect-node's connectNodeAdapter (2.2.0), with one change: a failure to write an answer goes
// to our logger instead of console.error. Writing fails when the caller has gone (a cancelled
// call, a closed session), which is routine: a debug line. Anything else is an error, in the
// JSON log with the rest, not a bare stack on stderr.
import type { Http2ServerRequest, Http2ServerResponse } from 'node:http2';
import { Code, ConnectError, createConnectRouter, type ConnectRouter, type Interceptor } from '@connectrpc/connect';
import { compressionBrotli, compressionGzip, universalRequestFromNodeRequest, universalResponseToNodeResponse } from '@connectrpc/connect-node';
import { uResponseNotFound } from '@connectrpc/connect/protocol';
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
        const where = { rpc: `${handler.service.typeName}/${handler.method.name}` };
        if (res.stream.destroyed) options.logger.debug({ ...where, error: String(reason) }, 'the caller went away before the answer was written');
        else options.logger.error({ ...where, err: reason }, 'an RPC answer could not be written');
      });
  };
}
