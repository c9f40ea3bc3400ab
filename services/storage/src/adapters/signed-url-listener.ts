// The Storage service's own HTTP/1.1 endpoint for signed URLs (curl PUTs and GETs here): local
// disk, and S3 with S3_UPLOADS=storage (uploads).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { BLOB_PATH } from '@media/blobstore';
import {
  answerClientError,
  capConnections,
  connectionRefusal,
  Errors,
  newRequestId,
  watchRateFloor,
  type ConnectionCaps,
  type DomainError,
  type Logger,
  metrics,
} from '@media/platform';

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

/** Window over which an upload's body must keep the minimum rate. */
export const UPLOAD_RATE_WINDOW_MS = 60_000;

export interface SignedUrlListenerOptions {
  /** Nothing moves on the connection for this long: it is closed (default 60 s). */
  idleTimeoutMs?: number;
  /** The request's headers must be in within this (default 10 s). */
  headersTimeoutMs?: number;
  /** Open connections per client address and in total (default: no cap). */
  caps?: ConnectionCaps;
  /**
   * An upload's body must bring at least this many bytes a second, averaged over each window
   * (default 60 s), or the connection is closed: one byte every few seconds keeps a connection
   * from going idle, not from being cut. 0: no floor.
   */
  minUploadBytesPerSec?: number;
  rateWindowMs?: number;
  /**
   * Upload requests (plain PUT, tus POST and PATCH) in progress at once, in all and per client
   * address (0: no cap); one over a cap is answered 503 with Retry-After before any byte of its
   * body is read. Unset: no caps (local disk, where a body goes straight to its file).
   */
  uploadCaps?: UploadCaps;
  /** Test hook: a connection closed for being idle, by the client's port. */
  onIdleClose?: (remotePort: number | undefined) => void;
}

export interface UploadCaps {
  total: number;
  perAddress: number;
}

/** Counts the upload requests in progress; `take` answers the refusal, or holds a place until the answer ends. */
function uploadSlots(caps: UploadCaps) {
  const byAddress = new Map<string, number>();
  let total = 0;
  return {
    take(req: IncomingMessage, res: ServerResponse): DomainError | undefined {
      const address = req.socket.remoteAddress ?? '';
      const mine = byAddress.get(address) ?? 0;
      if (caps.perAddress > 0 && mine >= caps.perAddress) return Errors.tooManyUploadsFromAddress(caps.perAddress);
      if (caps.total > 0 && total >= caps.total) return Errors.tooManyUploads();
      byAddress.set(address, mine + 1);
      total += 1;
      // The answer sent, or the connection gone: the place is free.
      res.once('close', () => {
        total -= 1;
        const left = (byAddress.get(address) ?? 1) - 1;
        if (left <= 0) byAddress.delete(address);
        else byAddress.set(address, left);
      });
      return undefined;
    },
  };
}

/** A refusal in the API's error shape; the connection is closed (an upload's body is not read). */
function refuse(res: ServerResponse, refusal: DomainError): void {
  const body = JSON.stringify({ ok: false, error: refusal.message });
  res
    .writeHead(refusal.status, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(body),
      'retry-after': String(refusal.retryAfterSec ?? 1),
      connection: 'close',
    })
    .end(body);
}

/** Closes the connection of an upload whose body brings less than the floor in a window. */
function requireMovingBody(req: IncomingMessage, minBytesPerSec: number, windowMs: number): void {
  const stop = watchRateFloor({
    minBytesPerSec,
    windowMs,
    moved: () => req.socket.bytesRead,
    // Bytes waiting to be read are the service's delay (a slow disk), not the client's.
    backlog: () => req.readableLength,
    onSlow: () => req.socket.destroy(),
  });
  // Once the last byte is in, the wait is the server's.
  req.once('end', stop);
  req.once('close', stop);
}

function countTransfer(method: string | undefined, status: number, sent: string | undefined, served: unknown): void {
  if (status < 200 || status >= 300) return;
  // The plain PUT and a resumable upload's parts (PATCH, or POST with its first bytes).
  if ((method === 'PUT' || method === 'PATCH' || method === 'POST') && sent)
    metrics.bytes.inc({ direction: 'uploaded' }, Number(sent) || 0);
  if (method === 'GET' && served !== undefined) metrics.bytes.inc({ direction: 'downloaded' }, Number(served) || 0);
}

export async function listenSignedUrls(
  host: string,
  port: number,
  logger: Logger,
  opts: SignedUrlListenerOptions = {},
): Promise<SignedUrlListener> {
  const idleTimeoutMs = opts.idleTimeoutMs ?? SIGNED_URL_IDLE_TIMEOUT_MS;
  let handler: Parameters<typeof createServer>[1] | undefined;
  const slots = opts.uploadCaps ? uploadSlots(opts.uploadCaps) : undefined;
  const serve = (req: IncomingMessage, res: ServerResponse, expectsContinue = false) => {
    // Like every answer of the API: users quote it when something went wrong.
    res.setHeader('X-Request-Id', newRequestId());
    const refusal = connectionRefusal(req.socket);
    if (refusal) return refuse(res, refusal);
    // Bodies of uploads: the plain PUT, and a resumable (tus) upload's PATCH or creation POST.
    const uploading = req.method === 'PUT' || req.method === 'PATCH' || req.method === 'POST';
    const busy = uploading && (req.url ?? '').startsWith(BLOB_PATH) ? slots?.take(req, res) : undefined;
    if (busy) return refuse(res, busy);
    // A client that waits for 100 Continue sends no byte of a refused body.
    if (expectsContinue) res.writeContinue();
    if (uploading) requireMovingBody(req, opts.minUploadBytesPerSec ?? 0, opts.rateWindowMs ?? UPLOAD_RATE_WINDOW_MS);
    // Once an upload's last byte is in, the wait is the server's (final fsync, records), not a
    // stalled client's: the idle timeout must not cut it. Node sets it again for the next request.
    if (uploading) req.once('end', () => req.socket.setTimeout(0));
    // Bytes of completed transfers (media_bytes_total), from the lengths each side declared.
    res.once('finish', () => countTransfer(req.method, res.statusCode, req.headers['content-length'], res.getHeader('content-length')));
    if (handler && (req.url ?? '').startsWith(BLOB_PATH)) return handler(req, res);
    res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ ok: false, error: 'Not found' }));
  };
  const server: Server = createServer({ headersTimeout: opts.headersTimeoutMs ?? 10_000, connectionsCheckingInterval: 1000 }, serve);
  server.on('checkContinue', (req: IncomingMessage, res: ServerResponse) => serve(req, res, true));
  // A request the HTTP parser refuses gets the API's error shape and an id, as at the gateway.
  server.on('clientError', (err, socket) => answerClientError(err, socket, logger));
  // Long uploads: no request timeout (the URL's own expiry bounds when one may start), only an
  // idle one: a socket idle this long is destroyed (as Node does with no 'timeout' listener).
  server.requestTimeout = 0;
  server.timeout = idleTimeoutMs;
  server.on('timeout', (socket: Socket) => {
    opts.onIdleClose?.(socket.remotePort);
    socket.destroy();
  });
  if (opts.caps) capConnections(server, opts.caps);
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
