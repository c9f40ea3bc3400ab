// Pure tables: no sockets, no DNS.
import { classifyAddress, parseCidrList } from '../src/net/index.js';

const NONE = parseCidrList('');

// [address as given, expected canonical connect address]
const PUBLIC: [string, string][] = [
  ['8.8.8.8', '8.8.8.8'],
  ['1.1.1.1', '1.1.1.1'],
  ['93.184.216.34', '93.184.216.34'],
  ['11.0.0.1', '11.0.0.1'],
  ['100.63.255.255', '100.63.255.255'], // just below CGNAT
  ['100.128.0.0', '100.128.0.0'], // just above CGNAT
  ['172.15.255.255', '172.15.255.255'],
  ['172.32.0.0', '172.32.0.0'],
  ['192.0.1.1', '192.0.1.1'],
  ['223.255.255.254', '223.255.255.254'],
  ['134744072', '8.8.8.8'], // decimal spelling of a public address
  ['2606:4700:4700::1111', '2606:4700:4700::1111'],
  ['2001:4860:4860::8888', '2001:4860:4860::8888'],
  ['[2a00:1450:4001:81c::200e]', '2a00:1450:4001:81c::200e'],
  ['::ffff:8.8.8.8', '8.8.8.8'], // mapped: connect as IPv4
  ['64:ff9b::808:808', '64:ff9b::808:808'], // NAT64 of 8.8.8.8: stays IPv6 (through the translator)
  ['2002:808:808::1', '2002:808:808::1'], // 6to4 of 8.8.8.8
];

// [address, reason fragment]
const NOT_PUBLIC: [string, string][] = [
  // IPv4 loopback in every spelling ipaddr.js accepts
  ['127.0.0.1', 'loopback'],
  ['127.255.255.254', 'loopback'],
  ['2130706433', 'loopback'],
  ['0x7f000001', 'loopback'],
  ['017700000001', 'loopback'],
  ['127.1', 'loopback'],
  ['0x7f.1', 'loopback'],
  ['0177.0.0.1', 'loopback'],
  // this network / unspecified
  ['0', 'unspecified'],
  ['0.0.0.0', 'unspecified'],
  ['0.1.2.3', 'unspecified'],
  // RFC 1918
  ['10.0.0.1', 'private'],
  ['10.255.255.255', 'private'],
  ['172.16.0.1', 'private'],
  ['172.31.255.255', 'private'],
  ['192.168.1.1', 'private'],
  ['0xc0a80101', 'private'],
  // link-local, cloud metadata
  ['169.254.169.254', 'linkLocal'],
  ['169.254.0.1', 'linkLocal'],
  ['100.64.0.1', 'carrierGradeNat'],
  ['100.127.255.255', 'carrierGradeNat'],
  ['192.0.0.1', 'reserved'],
  ['192.0.2.1', 'reserved'],
  ['192.88.99.1', 'reserved'],
  ['198.18.0.1', 'reserved'],
  ['198.19.255.255', 'reserved'],
  ['198.51.100.7', 'reserved'],
  ['203.0.113.9', 'reserved'],
  ['224.0.0.1', 'multicast'],
  ['239.255.255.250', 'multicast'],
  ['240.0.0.1', 'reserved'],
  ['255.255.255.255', 'broadcast'],
  ['192.175.48.1', 'as112'],
  // IPv6
  ['::1', 'loopback'],
  ['[::1]', 'loopback'],
  ['0:0:0:0:0:0:0:1', 'loopback'],
  ['::', 'unspecified'],
  ['::ffff:127.0.0.1', 'loopback'],
  ['::ffff:7f00:1', 'loopback'],
  ['::ffff:10.0.0.1', 'private'],
  ['::ffff:169.254.169.254', 'linkLocal'],
  ['::127.0.0.1', 'not global unicast'], // deprecated IPv4-compatible: ipaddr.js says 'unicast'
  ['::7f00:1', 'not global unicast'],
  ['::8.8.8.8', 'not global unicast'], // IPv4-compatible ::808:808, not mapped (ipaddr.js alone says mapped)
  ['fe80::8.8.8.8', 'linkLocal'],
  ['::ffff:0:7f00:1', 'rfc6145'],
  ['64:ff9b::7f00:1', 'NAT64 address of 127.0.0.1 (loopback)'],
  ['64:ff9b::a00:1', 'NAT64 address of 10.0.0.1 (private)'],
  ['64:ff9b::a9fe:a9fe', 'NAT64 address of 169.254.169.254'],
  ['64:ff9b:1::808:808', 'local-use NAT64 prefix'],
  ['2002:7f00:1::', '6to4 address of 127.0.0.1 (loopback)'],
  ['2002:c0a8:101::1', '6to4 address of 192.168.1.1 (private)'],
  ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'Teredo'],
  ['2001::1', 'Teredo'],
  ['fe80::1', 'linkLocal'],
  ['fe80::1%eth0', 'scoped address'],
  ['febf::1', 'linkLocal'],
  ['fec0::1', 'deprecatedSiteLocal'],
  ['fc00::1', 'uniqueLocal'],
  ['fd12:3456::1', 'uniqueLocal'],
  ['ff02::1', 'multicast'],
  ['ff05::1:3', 'multicast'],
  ['100::1', 'discard'],
  ['2001:db8::1', 'reserved'],
  ['2001:2::1', 'benchmarking'],
  ['2001:10::1', 'deprecatedOrchid'],
  ['2001:20::1', 'orchid2'],
  ['2001:4:112::1', 'as112v6'],
  ['2001:1::1', 'reserved'],
  ['3fff::1', 'reserved'],
  ['5f00::1', 'segmentRouting'],
  ['4000::1', 'not global unicast'],
  ['1::1', 'not global unicast'],
  // not addresses at all
  ['localhost', 'not an IP address'],
  ['', 'not an IP address'],
  ['256.0.0.1', 'not an IP address'],
  ['1.2.3.4.5', 'not an IP address'],
  ['127.0.0.1 ', 'not an IP address'],
  ['08.0.0.1', 'not an IP address'],
];

describe('classifyAddress', () => {
  it('has a table of at least 40 non-public spellings', () => {
    expect(NOT_PUBLIC.length + PUBLIC.length).toBeGreaterThanOrEqual(80);
  });

  it.each(PUBLIC)('%s is public (connect to %s)', (ip, address) => {
    expect(classifyAddress(ip, NONE)).toEqual({ public: true, address });
  });

  it.each(NOT_PUBLIC)('%s is not public (%s)', (ip, reason) => {
    const cls = classifyAddress(ip, NONE);
    expect(cls.public).toBe(false);
    expect(cls.reason).toContain(reason);
    expect(cls.address).toBeUndefined();
  });

  describe('with URL_ALLOWLIST_CIDRS=127.0.0.2/32, ::1/128', () => {
    const allow = parseCidrList('127.0.0.2/32, ::1/128');

    it.each([
      ['127.0.0.2', '127.0.0.2'],
      ['::ffff:127.0.0.2', '127.0.0.2'],
      ['0x7f000002', '127.0.0.2'],
      ['::1', '::1'],
    ])('%s is allow-listed', (ip, address) => {
      expect(classifyAddress(ip, allow)).toEqual({ public: true, reason: 'allow-listed', address });
    });

    it.each(['127.0.0.1', '127.0.0.3', '::2', '64:ff9b::7f00:1', '10.0.0.1'])('%s is still refused', (ip) => {
      expect(classifyAddress(ip, allow).public).toBe(false);
    });
  });
});

describe('parseCidrList', () => {
  it('parses commas and whitespace, bare addresses as single hosts', () => {
    const list = parseCidrList(' 127.0.0.2/32,::1/128  10.1.0.0/16\n192.0.2.7 ');
    expect(list.map((c) => c.text)).toEqual(['127.0.0.2/32', '::1/128', '10.1.0.0/16', '192.0.2.7/32']);
  });

  it('is empty for an unset or blank setting', () => {
    expect(parseCidrList(undefined)).toHaveLength(0);
    expect(parseCidrList('  ')).toHaveLength(0);
  });

  it.each(['10.0.0.0/33', '::1/129', '0x7f.1/32', '127.1', 'abc', '10.0.0.0/8/1', '10.0.0.0/-1', '10.0.0.0/8x', 'fe80::1%eth0/128'])(
    'rejects %s',
    (text) => {
      expect(() => parseCidrList(text)).toThrow(/Invalid CIDR/);
    },
  );
});
