// Node's HTTP parser refuses some requests before any handler sees them: a malformed request
// line, Content-Length or chunk, headers over Node's 16 KiB, a request not received in time. They
// get the spec's error shape and an id like every other answer (400: the spec's status for a
// malformed request), and the connection is closed, since the rest of its bytes cannot be
// trusted. Used by the gateway and by Storage's listener for local-disk signed URLs.
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Logger } from './logger.js';
import { newRequestId } from './ids.js';

export interface ParserError extends Error {
  code?: string;
  /** llhttp's reason, e.g. "Invalid character in Content-Length". */
  reason?: string;
}

/** The sentence for a request the parser refused. */
export function clientErrorMessage(err: ParserError): string {
  if (err.code === 'HPE_HEADER_OVERFLOW') return 'Request headers are larger than 16 KiB (16,384 bytes)';
  if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') return 'The request was not received in full in time';
  const reason = typeof err.reason === 'string' && err.reason ? `: ${err.reason.replace(/[^\x20-\x7e]/g, '?')}` : '';
  return `Malformed HTTP request${reason}`;
}

/** A node:http server's 'clientError': writes one raw HTTP/1.1 answer and closes. */
export function answerClientError(err: ParserError, socket: Duplex, logger: Pick<Logger, 'info'>): void {
  // A reset connection has no one left to answer.
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const requestId = newRequestId();
  const status = 400;
  const body = JSON.stringify({ ok: false, error: clientErrorMessage(err) });
  logger.info({ requestId, status, code: err.code, error: err.reason ?? err.message }, 'malformed request refused');
  // As Node's own handler: not into a response already under way (a pipelined request behind a download).
  const underway = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent === true;
  if (socket.writable && !underway) {
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
        `X-Request-Id: ${requestId}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}
