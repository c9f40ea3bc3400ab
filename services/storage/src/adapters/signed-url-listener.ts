// The Storage service's own HTTP/1.1 endpoint for local-disk signed URLs (curl PUTs and GETs here).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { BLOB_PATH } from '@media/blobstore';
import { answerClientError, newRequestId, type Logger } from '@media/platform';

export interface SignedUrlListener {
  port: number;
  setHandler(handler: Parameters<typeof createServer>[1]): void;
  close(): Promise<void>;
}

export async function listenSignedUrls(host: string, port: number, logger: Logger): Promise<SignedUrlListener> {
  let handler: Parameters<typeof createServer>[1] | undefined;
  const server: Server = createServer((req, res) => {
    // Like every answer of the API: users quote it when something went wrong.
    res.setHeader('X-Request-Id', newRequestId());
    if (handler && (req.url ?? '').startsWith(BLOB_PATH)) return handler(req, res);
    res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ ok: false, error: 'Not found' }));
  });
  // A request the HTTP parser refuses gets the API's error shape and an id, as at the gateway.
  server.on('clientError', (err, socket) => answerClientError(err, socket, logger));
  // Long uploads: no request timeout (the URL's own expiry bounds when one may start).
  server.requestTimeout = 0;
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(port, host, () => resolve()));
  return {
    port: (server.address() as AddressInfo).port,
    setHandler: (h) => (handler = h),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
