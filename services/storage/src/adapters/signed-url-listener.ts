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

/**
 * A connection on which the client moves nothing for this long is closed: a client that stopped
 * reading a download or sending an upload would otherwise hold its socket and the transfer's
 * buffers (1 MB per download) for as long as it stays connected. Uploads and downloads that are
 * moving, however slowly, are never cut, nor an upload whose last byte is in.
 */
export const SIGNED_URL_IDLE_TIMEOUT_MS = 60_000;

export async function listenSignedUrls(host: string, port: number, logger: Logger, idleTimeoutMs = SIGNED_URL_IDLE_TIMEOUT_MS): Promise<SignedUrlListener> {
  let handler: Parameters<typeof createServer>[1] | undefined;
  const server: Server = createServer((req, res) => {
    // Like every answer of the API: users quote it when something went wrong.
    res.setHeader('X-Request-Id', newRequestId());
    // Once an upload's last byte is in, the wait is the server's (final fsync, records), not a
    // stalled client's: the idle timeout must not cut it. Node sets it again for the next request.
    if (req.method === 'PUT') req.once('end', () => req.socket.setTimeout(0));
    if (handler && (req.url ?? '').startsWith(BLOB_PATH)) return handler(req, res);
    res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ ok: false, error: 'Not found' }));
  });
  // A request the HTTP parser refuses gets the API's error shape and an id, as at the gateway.
  server.on('clientError', (err, socket) => answerClientError(err, socket, logger));
  // Long uploads: no request timeout (the URL's own expiry bounds when one may start), only an
  // idle one. With no 'timeout' listener, Node destroys a socket idle this long.
  server.requestTimeout = 0;
  server.timeout = idleTimeoutMs;
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
