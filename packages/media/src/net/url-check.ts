// The one gate every outbound URL (task input, redirect hop, webhook) goes through: HTTPS only, no
// credentials, and every address the host resolves to must be public. The result carries the
// checked addresses so the connection can be pinned to them (no second DNS query to rebind).
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { DomainError, Errors } from '@media/platform';
import { MAX_URL_LENGTH } from '../policy/limits.js';
import { classifyAddress } from './classify.js';
import { type CidrList, EMPTY_CIDR_LIST } from './cidr.js';

/** Returns every address for a host name. Injectable so tests never query real DNS. */
export type Resolver = (hostname: string) => Promise<string[]>;

/** getaddrinfo (what the OS would use), all answers, in the order the system gave them. */
export const systemResolver: Resolver = async (hostname) => (await lookup(hostname, { all: true, verbatim: true })).map((a) => a.address);

export interface UrlCheckDeps {
  /** URL_ALLOWLIST_CIDRS: addresses inside count as public. Empty by default. */
  allowlist?: CidrList;
  resolver?: Resolver;
  /** Gives up on resolution when aborted. */
  signal?: AbortSignal;
}

export interface ResolvedTarget {
  url: URL;
  /** The URL's host without brackets: what the HTTP client will try to look up. */
  hostname: string;
  /** TLS server name (trailing dot removed); undefined for IP literals, which get no SNI. */
  servername: string | undefined;
  /** Checked, canonical addresses, all public: connect to these and nothing else. */
  addresses: string[];
}

/** DNS gave no usable answer. A DomainError (400) at submit time; webhook delivery may retry it. */
export class HostResolutionError extends DomainError {
  constructor(
    readonly hostname: string,
    readonly code: string | undefined,
  ) {
    super('bad_request', `URL host could not be resolved: ${hostname}`);
    this.name = 'HostResolutionError';
  }
}

/** Scheme, host and path only: no credentials, query or fragment (signed URLs carry secrets). */
export function describeUrl(url: URL): string {
  const text = `${url.protocol}//${url.host}${url.pathname}`;
  return text.length > 200 ? `${text.slice(0, 197)}...` : text;
}

/** Parses an absolute URL; 400 when it is too long or not a URL. */
export function parseUrl(input: string | URL): URL {
  if (input instanceof URL) return input;
  if (input.length > MAX_URL_LENGTH) throw Errors.invalidRequest(`URL is too long (over ${MAX_URL_LENGTH} characters)`);
  try {
    return new URL(input);
  } catch {
    throw Errors.invalidRequest('URL is not a valid absolute URL');
  }
}

/** Names the OS resolves to loopback without asking DNS (RFC 6761): refused by name. */
function isLocalhostName(name: string): boolean {
  return name === 'localhost' || name.endsWith('.localhost');
}

function raceAbort<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

async function resolveName(hostname: string, deps: UrlCheckDeps): Promise<string[]> {
  const resolver = deps.resolver ?? systemResolver;
  try {
    return await raceAbort(resolver(hostname), deps.signal);
  } catch (err) {
    if (deps.signal?.aborted) throw err;
    const code = (err as { code?: unknown }).code;
    throw new HostResolutionError(hostname, typeof code === 'string' ? code : undefined);
  }
}

/**
 * Checks a URL for use as a task input or webhook target and resolves its host. Throws a 400
 * DomainError when the URL is not HTTPS, carries credentials, names localhost, or any address
 * its host resolves to is not public (one private answer among public ones refuses the URL).
 * Any port is allowed: the address check is what keeps requests off internal networks.
 */
export async function checkPublicHttpsUrl(input: string | URL, deps: UrlCheckDeps = {}): Promise<ResolvedTarget> {
  const url = parseUrl(input);
  if (url.protocol !== 'https:') throw Errors.invalidRequest(`URL must use HTTPS: ${describeUrl(url)}`);
  if (url.username !== '' || url.password !== '') throw Errors.invalidRequest('URL must not contain credentials');
  const allowlist = deps.allowlist ?? EMPTY_CIDR_LIST;
  const hostname = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  if (hostname === '') throw Errors.invalidRequest('URL has no host');

  if (isIP(hostname) !== 0) {
    // WHATWG URL has already turned 2130706433, 0x7f.1, 127.1 ... into dotted decimal.
    const cls = classifyAddress(hostname, allowlist);
    if (!cls.public) throw Errors.invalidRequest(`URL host is a non-public address (${hostname}: ${cls.reason})`);
    return { url, hostname, servername: undefined, addresses: [cls.address!] };
  }

  const servername = hostname.endsWith('.') ? hostname.slice(0, -1) : hostname;
  if (isLocalhostName(servername)) throw Errors.invalidRequest(`URL host is not allowed: ${hostname}`);
  const answers = await resolveName(hostname, deps);
  if (answers.length === 0) throw new HostResolutionError(hostname, 'ENODATA');
  const addresses: string[] = [];
  for (const answer of answers) {
    const cls = classifyAddress(answer, allowlist);
    if (!cls.public) {
      throw Errors.invalidRequest(`URL host resolves to a non-public address (${answer}: ${cls.reason})`);
    }
    if (!addresses.includes(cls.address!)) addresses.push(cls.address!);
  }
  return { url, hostname, servername, addresses };
}
