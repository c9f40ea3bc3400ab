// Is this IP address one the service may connect to on a user's behalf? Default deny: IPv4 must be
// ipaddr.js 'unicast' and outside the explicit deny table; IPv6 must also sit in global unicast
// 2000::/3. Addresses that embed an IPv4 address (mapped, NAT64, 6to4) are judged by that address.
import { isIPv6 } from 'node:net';
import ipaddr from 'ipaddr.js';
import { type CidrList, type IpAddress, findCidr, parseCidr } from './cidr.js';

export interface AddressClass {
  public: boolean;
  /** Why it is not public (or 'allow-listed'): a range name such as 'loopback'. */
  reason?: string;
  /**
   * The canonical address to connect to when public (IPv4-mapped IPv6 becomes plain IPv4). Callers
   * must connect to this string, never to the spelling they classified, so no other parser can
   * read the input differently.
   */
  address?: string;
}

const table = (rows: [string, string][]) => rows.map(([cidr, reason]) => ({ cidr: parseCidr(cidr), reason }));

// Repeats most of ipaddr.js's own ranges on purpose: a future ipaddr.js that renames or narrows a
// range must not silently open one.
const IPV4_DENY = table([
  ['0.0.0.0/8', 'this network'],
  ['10.0.0.0/8', 'private'],
  ['100.64.0.0/10', 'carrier-grade NAT'],
  ['127.0.0.0/8', 'loopback'],
  ['169.254.0.0/16', 'link-local'],
  ['172.16.0.0/12', 'private'],
  ['192.0.0.0/24', 'IETF protocol assignments'],
  ['192.0.2.0/24', 'documentation'],
  ['192.31.196.0/24', 'AS112'],
  ['192.52.193.0/24', 'AMT'],
  ['192.88.99.0/24', '6to4 relay anycast'],
  ['192.168.0.0/16', 'private'],
  ['192.175.48.0/24', 'AS112'],
  ['198.18.0.0/15', 'benchmarking'],
  ['198.51.100.0/24', 'documentation'],
  ['203.0.113.0/24', 'documentation'],
  ['224.0.0.0/4', 'multicast'],
  ['240.0.0.0/4', 'reserved'],
  ['255.255.255.255/32', 'broadcast'],
]);

// Checked inside 2000::/3 (everything outside it is refused anyway).
const IPV6_DENY = table([
  ['2001::/23', 'IETF protocol assignments'], // Teredo, benchmarking, ORCHID, AMT, AS112 ...
  ['2001:db8::/32', 'documentation'],
  ['2002::/16', '6to4'], // only reached when the embedded IPv4 was not extracted
  ['2620:4f:8000::/48', 'AS112'],
  ['3fff::/20', 'documentation'],
]);

const GLOBAL_UNICAST_V6 = parseCidr('2000::/3');
const NAT64_WKP = parseCidr('64:ff9b::/96'); // RFC 6052 well-known prefix: IPv4 in the last 32 bits
const NAT64_LOCAL = parseCidr('64:ff9b:1::/48'); // RFC 8215 local-use: embedding position not fixed
const SIX_TO_FOUR = parseCidr('2002::/16'); // RFC 3056: IPv4 in bits 16..47
const TEREDO = parseCidr('2001::/32');

const refuse = (reason: string): AddressClass => ({ public: false, reason });

function ipv4FromParts(hi: number, lo: number): ipaddr.IPv4 {
  return new ipaddr.IPv4([hi >> 8, hi & 0xff, lo >> 8, lo & 0xff]);
}

function classifyV4(addr: ipaddr.IPv4, allowlist: CidrList): AddressClass {
  const address = addr.toString();
  if (findCidr(addr, allowlist)) return { public: true, reason: 'allow-listed', address };
  const range = addr.range();
  if (range !== 'unicast') return refuse(range);
  const denied = IPV4_DENY.find((d) => addr.match(d.cidr.addr, d.cidr.bits));
  if (denied) return refuse(denied.reason);
  return { public: true, address };
}

/** Judges an IPv6 address by the IPv4 address it carries; the connect address stays the IPv6 one. */
function viaEmbedded(addr: ipaddr.IPv6, embedded: ipaddr.IPv4, what: string, allowlist: CidrList): AddressClass {
  const inner = classifyV4(embedded, allowlist);
  if (!inner.public) return refuse(`${what} of ${embedded.toString()} (${inner.reason})`);
  return { public: true, address: addr.toString() };
}

function classifyV6(addr: ipaddr.IPv6, allowlist: CidrList): AddressClass {
  if (findCidr(addr, allowlist)) return { public: true, reason: 'allow-listed', address: addr.toString() };
  // ::ffff:a.b.c.d is the IPv4 host itself: classify and connect as IPv4.
  if (addr.isIPv4MappedAddress()) return classifyV4(addr.toIPv4Address(), allowlist);
  const p = addr.parts;
  if (inCidr(addr, NAT64_WKP)) return viaEmbedded(addr, ipv4FromParts(p[6]!, p[7]!), 'NAT64 address', allowlist);
  if (inCidr(addr, NAT64_LOCAL)) return refuse('local-use NAT64 prefix');
  if (inCidr(addr, SIX_TO_FOUR)) return viaEmbedded(addr, ipv4FromParts(p[1]!, p[2]!), '6to4 address', allowlist);
  // Teredo hides the client IPv4 (obfuscated) and names a relay server; never a media host.
  if (inCidr(addr, TEREDO)) return refuse('Teredo');
  const range = addr.range();
  if (range !== 'unicast') return refuse(range);
  // Outside 2000::/3 nothing is allocated for global unicast (and ::a.b.c.d IPv4-compatible
  // addresses, which ipaddr.js calls 'unicast', live there).
  if (!inCidr(addr, GLOBAL_UNICAST_V6)) return refuse('not global unicast');
  const denied = IPV6_DENY.find((d) => addr.match(d.cidr.addr, d.cidr.bits));
  if (denied) return refuse(denied.reason);
  return { public: true, address: addr.toString() };
}

function inCidr(addr: IpAddress, cidr: { addr: IpAddress; bits: number }): boolean {
  return addr.kind() === cidr.addr.kind() && addr.match(cidr.addr, cidr.bits);
}

/**
 * Classifies one IP address string (any spelling ipaddr.js accepts, including 2130706433, 0x7f.1,
 * ::ffff:127.0.0.1; brackets tolerated). Anything unparsable is not public. Addresses inside the
 * allow-list count as public.
 */
export function classifyAddress(ip: string, allowlist: CidrList): AddressClass {
  const bare = ip.startsWith('[') && ip.endsWith(']') ? ip.slice(1, -1) : ip;
  if (bare.includes(':')) {
    const [base = '', zone] = bare.split('%', 2);
    if (!isIPv6(base)) return refuse('not an IP address');
    if (zone !== undefined) return refuse('scoped address');
    return classifyV6(ipaddr.IPv6.parse(canonicalIPv6(base)), allowlist);
  }
  if (!ipaddr.IPv4.isValid(bare)) return refuse('not an IP address');
  return classifyV4(ipaddr.IPv4.parse(bare), allowlist);
}

/**
 * ipaddr.js reads "::8.8.8.8" as the mapped ::ffff:8.8.8.8; the OS and WHATWG URL read it as the
 * IPv4-compatible ::808:808. Let WHATWG's parser (as the OS would) fix the 128 bits first.
 */
function canonicalIPv6(text: string): string {
  return new URL(`http://[${text}]/`).hostname.slice(1, -1);
}
