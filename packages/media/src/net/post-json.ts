// One webhook delivery attempt: POST JSON to a checked, pinned HTTPS target. Redirects are never
// followed (a 3xx is just a non-2xx outcome), so a webhook cannot bounce the service inward.
// Retries belong to the caller: transport failures throw NetTransportError, refusals DomainError.
import { DomainError } from '@media/platform';
import type { CidrList } from './cidr.js';
import { startDeadline } from './deadline.js';
import { pinnedAgent } from './pinned-agent.js';
import { undici } from './undici.js';
import { NetTransportError, timeoutError, toTransportError } from './transport-error.js';
import { HostResolutionError, type Resolver, checkPublicHttpsUrl } from './url-check.js';

/** One webhook attempt's time limit (the default of Jobs' WEBHOOK_TIMEOUT_SEC too). */
export const WEBHOOK_TIMEOUT_MS = 10_000;
const MAX_REQUEST_BODY_BYTES = 1024 * 1024;
/** Read at most this much of the receiver's answer, then drop the connection. */
const MAX_RESPONSE_DRAIN_BYTES = 64 * 1024;

export interface PostJsonOptions {
  allowlist?: CidrList;
  resolver?: Resolver;
  /** Extra trusted CA (PEM); tests only. */
  ca?: string | Buffer;
  /** Whole attempt: DNS, connect, TLS, sending and the answer's headers. Default 10 s. */
  timeoutMs?: number;
  connectTimeoutMs?: number;
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

export interface PostJsonResult {
  /** Any status the receiver answered, 3xx included. */
  status: number;
}

/**
 * POSTs `body` as JSON. Throws: DomainError (400) when the URL is refused (not HTTPS, credentials,
 * non-public address) — do not retry; NetTransportError for DNS, connect, TLS, timeout or protocol
 * failures — retryable. The target is contacted only after every check passed.
 */
export async function postJson(url: string, body: unknown, opts: PostJsonOptions = {}): Promise<PostJsonResult> {
  const payload = Buffer.from(JSON.stringify(body), 'utf8');
  if (payload.length > MAX_REQUEST_BODY_BYTES)
    throw new RangeError(`webhook body is ${payload.length} bytes; at most ${MAX_REQUEST_BODY_BYTES}`);
  const timeoutMs = opts.timeoutMs ?? WEBHOOK_TIMEOUT_MS;
  // Loaded before the clock starts: the time limit is the network exchange's, not the first load's.
  const { request } = await undici();
  const deadline = startDeadline(timeoutMs, opts.signal);
  try {
    const target = await checkPublicHttpsUrl(url, { allowlist: opts.allowlist, resolver: opts.resolver, signal: deadline.signal });
    const agent = await pinnedAgent(target, {
      ca: opts.ca,
      connectTimeoutMs: Math.min(opts.connectTimeoutMs ?? timeoutMs, timeoutMs),
      timeoutMs,
    });
    try {
      const res = await request(target.url, {
        dispatcher: agent,
        method: 'POST',
        headers: { 'user-agent': 'media-service-webhook', ...opts.headers, 'content-type': 'application/json' },
        body: payload,
        signal: deadline.signal,
      });
      // The answer's body is not ours to keep: read a little (so keep-alive peers see a clean
      // exchange), then drop the rest.
      await res.body.dump({ limit: MAX_RESPONSE_DRAIN_BYTES }).catch(() => {});
      return { status: res.statusCode };
    } finally {
      await agent.destroy().catch(() => {});
    }
  } catch (err) {
    if (err instanceof HostResolutionError) throw new NetTransportError('dns', err.message, { cause: err });
    if (err instanceof DomainError || err instanceof NetTransportError) throw err;
    if (opts.signal?.aborted && !deadline.expired) throw opts.signal.reason;
    throw deadline.expired ? timeoutError(timeoutMs, err) : toTransportError(err);
  } finally {
    deadline.dispose();
  }
}
