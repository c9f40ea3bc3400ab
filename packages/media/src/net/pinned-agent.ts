// An undici Agent that can only reach the addresses a ResolvedTarget was checked against. Its
// `lookup` answers from the checked list instead of asking DNS again, so a rebinding DNS server
// gets no second chance between check and connect. TLS still verifies the certificate against
// the URL's host name (SNI = servername), with verification always on.
import type { LookupAddress, LookupOptions } from 'node:dns';
import { isIP } from 'node:net';
import type { Agent } from 'undici';
import { undici } from './undici.js';
import type { ResolvedTarget } from './url-check.js';

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

function lookupError(code: string, message: string): NodeJS.ErrnoException {
  return Object.assign(new Error(message), { code });
}

/** A net/tls `lookup` that returns only the pinned addresses, and only for the pinned host. */
export function pinnedLookup(target: ResolvedTarget) {
  return (hostname: string, options: LookupOptions | LookupCallback, maybeCallback?: LookupCallback): void => {
    const callback = (typeof options === 'function' ? options : maybeCallback)!;
    const opts: LookupOptions = typeof options === 'function' ? {} : options;
    if (hostname !== target.hostname) {
      callback(lookupError('ERR_PINNED_HOST', `lookup of ${hostname} refused: connection is pinned to ${target.hostname}`), '', 0);
      return;
    }
    const wanted = opts.family === 'IPv4' ? 4 : opts.family === 'IPv6' ? 6 : Number(opts.family ?? 0);
    const list = target.addresses.map((address) => ({ address, family: isIP(address) })).filter((a) => wanted === 0 || a.family === wanted);
    if (list.length === 0) {
      callback(lookupError('ENOTFOUND', `no pinned IPv${wanted} address for ${hostname}`), '', 0);
      return;
    }
    if (opts.all) callback(null, list);
    else callback(null, list[0]!.address, list[0]!.family);
  };
}

export interface PinnedAgentOptions {
  /** Extra trusted CA certificates (PEM), for tests with a self-signed server. */
  ca?: string | Buffer | Array<string | Buffer>;
  connectTimeoutMs: number;
  /**
   * The whole exchange's limit, also undici's own per-phase limits (headers, body): the caller's
   * total deadline is enforced with an AbortSignal.
   */
  timeoutMs: number;
}

/** One Agent per checked hop: destroy it when the hop is done. */
export async function pinnedAgent(target: ResolvedTarget, opts: PinnedAgentOptions): Promise<Agent> {
  const { Agent } = await undici();
  return new Agent({
    connect: {
      lookup: pinnedLookup(target),
      // undefined for IP literals: no SNI, and the certificate is checked against the IP.
      servername: target.servername,
      ca: opts.ca,
      rejectUnauthorized: true,
      timeout: opts.connectTimeoutMs,
    },
    headersTimeout: opts.timeoutMs,
    bodyTimeout: opts.timeoutMs,
    // A pinned hop makes one request; never keep its socket for anything else.
    pipelining: 1,
    connections: 1,
  });
}
