// CIDR lists: the URL_ALLOWLIST_CIDRS setting and the explicit deny tables share this shape.
import ipaddr from 'ipaddr.js';

export type IpAddress = ipaddr.IPv4 | ipaddr.IPv6;

export interface Cidr {
  readonly addr: IpAddress;
  readonly bits: number;
  /** As written, for error texts and logs. */
  readonly text: string;
}

export type CidrList = readonly Cidr[];

export const EMPTY_CIDR_LIST: CidrList = Object.freeze([]);

/**
 * Parses one CIDR ("10.0.0.0/8", "::1/128") or a bare address (taken as /32 or /128).
 * IPv4 must be written as four decimal parts: a configuration file is no place for 0x7f.1.
 */
export function parseCidr(text: string): Cidr {
  const trimmed = text.trim();
  const [addrText, bitsText, extra] = trimmed.split('/');
  if (addrText === undefined || extra !== undefined || addrText.includes('%')) {
    throw new Error(`Invalid CIDR '${text}'`);
  }
  const isV4 = ipaddr.IPv4.isValidFourPartDecimal(addrText);
  if (!isV4 && !ipaddr.IPv6.isValid(addrText)) throw new Error(`Invalid CIDR '${text}'`);
  const addr = ipaddr.parse(addrText);
  const max = addr.kind() === 'ipv4' ? 32 : 128;
  const bits = bitsText === undefined ? max : Number(bitsText);
  if (bitsText !== undefined && !/^\d{1,3}$/.test(bitsText)) throw new Error(`Invalid CIDR '${text}'`);
  if (!Number.isInteger(bits) || bits < 0 || bits > max) throw new Error(`Invalid CIDR '${text}'`);
  return { addr, bits, text: `${addr.toString()}/${bits}` };
}

/**
 * Parses the URL_ALLOWLIST_CIDRS setting: CIDRs separated by commas and/or whitespace.
 * Addresses inside the list count as public for URL inputs and webhooks. Meant for tests (a
 * loopback test server such as 127.0.0.2/32) and for operators who knowingly expose an internal
 * source; in production leave it empty. Throws on any invalid entry (fail at startup, not later).
 */
export function parseCidrList(text: string | undefined): CidrList {
  if (text === undefined || text.trim() === '') return EMPTY_CIDR_LIST;
  return Object.freeze(
    text
      .split(/[\s,]+/)
      .filter((part) => part !== '')
      .map(parseCidr),
  );
}

/** The allow-list from the environment (URL_ALLOWLIST_CIDRS), empty when unset. */
export function allowlistFromEnv(env: NodeJS.ProcessEnv = process.env): CidrList {
  return parseCidrList(env.URL_ALLOWLIST_CIDRS);
}

/** The first entry containing addr, if any. Entries of the other IP family never match. */
export function findCidr(addr: IpAddress, list: CidrList): Cidr | undefined {
  return list.find((c) => c.addr.kind() === addr.kind() && addr.match(c.addr as never, c.bits));
}
