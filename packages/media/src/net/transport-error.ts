// Network failures after a URL passed the checks: the peer, not the request, was the problem.
// Webhook delivery retries on these; URL inputs turn them into a 400 naming the cause.

export type TransportFailureKind = 'timeout' | 'dns' | 'connect' | 'tls' | 'protocol';

export class NetTransportError extends Error {
  constructor(
    readonly kind: TransportFailureKind,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'NetTransportError';
  }
}

const CONNECT_CODES: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  EPIPE: 'connection closed',
  UND_ERR_SOCKET: 'connection closed by the server',
  UND_ERR_CLOSED: 'connection closed',
};

const TIMEOUT_CODES: Record<string, string> = {
  UND_ERR_CONNECT_TIMEOUT: 'connection timed out',
  UND_ERR_HEADERS_TIMEOUT: 'no response in time',
  UND_ERR_BODY_TIMEOUT: 'response body stalled',
  ETIMEDOUT: 'connection timed out',
};

/** Node/undici error (or its cause chain) -> one NetTransportError with a short, safe message. */
export function toTransportError(err: unknown): NetTransportError {
  if (err instanceof NetTransportError) return err;
  // Duck-typed walk: errors from Node internals may come from another realm (e.g. under jest),
  // where `instanceof Error` is false.
  for (
    let e: unknown = err, depth = 0;
    typeof e === 'object' && e !== null && depth < 5;
    e = (e as { cause?: unknown }).cause, depth += 1
  ) {
    const code = (e as { code?: unknown }).code;
    if (typeof code !== 'string') continue;
    if (code in TIMEOUT_CODES) return new NetTransportError('timeout', TIMEOUT_CODES[code]!, { cause: err });
    if (code in CONNECT_CODES) return new NetTransportError('connect', `${CONNECT_CODES[code]!} (${code})`, { cause: err });
    if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'ERR_PINNED_HOST') {
      return new NetTransportError('dns', `host lookup failed (${code})`, { cause: err });
    }
    // OpenSSL verification codes (DEPTH_ZERO_SELF_SIGNED_CERT, CERT_HAS_EXPIRED, ...) and Node's.
    if (/CERT|SSL|TLS|SELF_SIGNED|UNABLE_TO_/.test(code)) {
      return new NetTransportError('tls', `TLS failed: certificate not accepted (${code})`, { cause: err });
    }
    return new NetTransportError('protocol', `network error (${code})`, { cause: err });
  }
  return new NetTransportError('protocol', 'network error', { cause: err });
}

export function timeoutError(ms: number, cause?: unknown): NetTransportError {
  return new NetTransportError('timeout', `timed out after ${ms / 1000} s`, { cause });
}
