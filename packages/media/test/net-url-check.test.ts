// checkPublicHttpsUrl with a fake resolver: no sockets, no real DNS.
import { DomainError } from '@media/platform';
import { HostResolutionError, MAX_URL_LENGTH, checkPublicHttpsUrl, parseCidrList } from '../src/net/index.js';
import { fakeResolver, rejection } from './net-helpers.js';

const resolver = fakeResolver({
  'public.test': ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946'],
  'evil.test': ['127.0.0.1'],
  'metadata.test': ['169.254.169.254'],
  'mixed.test': ['93.184.216.34', '10.0.0.1'],
  'mapped.test': ['::ffff:10.0.0.1'],
  'mapped-public.test': ['::ffff:93.184.216.34'],
  'six.test': ['::1'],
  'empty.test': [],
  'garbage.test': ['not-an-address'],
  'xn--bcher-kva.example': ['93.184.216.34'],
  localhost: ['93.184.216.34'], // even a lying resolver cannot make "localhost" acceptable
  'allowed.test': ['127.0.0.2'],
});
const deps = { resolver, allowlist: parseCidrList('') };

async function refusal(url: string, d = deps): Promise<DomainError> {
  const err = await rejection(checkPublicHttpsUrl(url, d));
  expect(err).toBeInstanceOf(DomainError);
  expect((err as DomainError).status).toBe(400);
  return err as DomainError;
}

describe('checkPublicHttpsUrl refuses', () => {
  // IP literals: WHATWG URL normalises the spelling, the classifier judges the result.
  it.each([
    ['https://2130706433/', '127.0.0.1: loopback'],
    ['https://0x7f000001/', '127.0.0.1: loopback'],
    ['https://017700000001/', '127.0.0.1: loopback'],
    ['https://127.1/', '127.0.0.1: loopback'],
    ['https://127.0.0.1./', '127.0.0.1: loopback'],
    ['https://%31%32%37.0.0.1/', '127.0.0.1: loopback'],
    ['https://１２７.０.０.１/', '127.0.0.1: loopback'], // full-width digits (IDNA mapping)
    ['https://0/', '0.0.0.0: unspecified'],
    ['https://[::1]:8443/', '::1: loopback'],
    ['https://[::ffff:127.0.0.1]/', '::ffff:7f00:1: loopback'],
    ['https://[::ffff:7f00:1]/', '::ffff:7f00:1: loopback'],
    ['https://[0:0:0:0:0:ffff:127.0.0.1]/', '::ffff:7f00:1: loopback'],
    ['https://[::127.0.0.1]/', '::7f00:1: not global unicast'],
    ['https://[64:ff9b::7f00:1]/', 'NAT64 address of 127.0.0.1'],
    ['https://[2002:7f00:1::]/', '6to4 address of 127.0.0.1'],
    ['https://[fd00::1]/', 'uniqueLocal'],
    ['https://169.254.169.254/latest/meta-data/', 'linkLocal'],
    ['https://10.0.0.1:443/', 'private'],
  ])('%s (%s)', async (url, detail) => {
    const err = await refusal(url);
    expect(err.message).toMatch(/^URL host is a non-public address \(.+\)$/);
    expect(err.message).toContain(detail);
    expect(resolver.calls).toEqual([]);
  });

  it('a zone id in the host, which WHATWG URL rejects outright', async () => {
    expect((await refusal('https://[fe80::1%25eth0]/')).message).toBe('URL is not a valid absolute URL');
  });

  it.each([
    ['http://public.test/', 'URL must use HTTPS: http://public.test/'],
    ['ftp://public.test/x', 'URL must use HTTPS: ftp://public.test/x'],
    ['file:///etc/passwd', 'URL must use HTTPS: file:///etc/passwd'],
    ['HTTP://PUBLIC.TEST/a?token=secret', 'URL must use HTTPS: http://public.test/a'],
    ['https://user:pass@evil.test@public.test/', 'URL must not contain credentials'],
    ['https://user@public.test/', 'URL must not contain credentials'],
    ['https://:pass@public.test/', 'URL must not contain credentials'],
    ['https://localhost/', 'URL host is not allowed: localhost'],
    ['https://LOCALHOST./', 'URL host is not allowed: localhost.'],
    ['https://localhost%2e/', 'URL host is not allowed: localhost.'],
    ['https://api.localhost/', 'URL host is not allowed: api.localhost'],
    ['https://evil.test/', 'URL host resolves to a non-public address (127.0.0.1: loopback)'],
    ['https://evil.test./', 'URL host resolves to a non-public address (127.0.0.1: loopback)'],
    ['https://metadata.test/', 'URL host resolves to a non-public address (169.254.169.254: linkLocal)'],
    ['https://mixed.test/', 'URL host resolves to a non-public address (10.0.0.1: private)'],
    ['https://mapped.test/', 'URL host resolves to a non-public address (::ffff:10.0.0.1: private)'],
    ['https://six.test/', 'URL host resolves to a non-public address (::1: loopback)'],
    ['https://garbage.test/', 'URL host resolves to a non-public address (not-an-address: not an IP address)'],
    ['https://allowed.test/', 'URL host resolves to a non-public address (127.0.0.2: loopback)'],
    ['not a url', 'URL is not a valid absolute URL'],
    ['/relative/path', 'URL is not a valid absolute URL'],
    ['https://evil.test%00.public.test/', 'URL is not a valid absolute URL'],
    ['https://4294967296/', 'URL is not a valid absolute URL'],
    [`https://public.test/${'a'.repeat(MAX_URL_LENGTH)}`, `URL is too long (over ${MAX_URL_LENGTH} characters)`],
  ])('%s', async (url, message) => {
    expect((await refusal(url)).message).toBe(message);
  });

  it('hosts that do not resolve, with a HostResolutionError (400)', async () => {
    for (const url of ['https://unknown.test/', 'https://empty.test/']) {
      const err = await refusal(url);
      expect(err).toBeInstanceOf(HostResolutionError);
      expect(err.message).toMatch(/^URL host could not be resolved: (unknown|empty)\.test$/);
    }
  });
});

describe('checkPublicHttpsUrl accepts', () => {
  it('a name whose every address is public, returning all of them', async () => {
    const t = await checkPublicHttpsUrl('https://public.test:8443/a/b.mp4?sig=1', deps);
    expect(t.url.href).toBe('https://public.test:8443/a/b.mp4?sig=1');
    expect(t.hostname).toBe('public.test');
    expect(t.servername).toBe('public.test');
    expect(t.addresses).toEqual(['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946']);
  });

  it('a trailing-dot name: resolved as written, TLS name without the dot', async () => {
    const t = await checkPublicHttpsUrl('https://public.test./x', deps);
    expect(t.hostname).toBe('public.test.');
    expect(t.servername).toBe('public.test');
  });

  it('an IDN host, resolved in its punycode form', async () => {
    const t = await checkPublicHttpsUrl('https://bücher.example/film.mkv', deps);
    expect(t.hostname).toBe('xn--bcher-kva.example');
    expect(resolver.calls.at(-1)).toBe('xn--bcher-kva.example');
  });

  it('a mapped IPv6 answer, pinned as plain IPv4', async () => {
    expect((await checkPublicHttpsUrl('https://mapped-public.test/', deps)).addresses).toEqual(['93.184.216.34']);
  });

  it('public IP literals without DNS and without SNI', async () => {
    const before = resolver.calls.length;
    const t = await checkPublicHttpsUrl('https://134744072/', deps);
    expect(t.hostname).toBe('8.8.8.8');
    expect(t.servername).toBeUndefined();
    expect(t.addresses).toEqual(['8.8.8.8']);
    const v6 = await checkPublicHttpsUrl('https://[2606:4700:4700::1111]:9000/', deps);
    expect(v6.hostname).toBe('2606:4700:4700::1111');
    expect(v6.addresses).toEqual(['2606:4700:4700::1111']);
    expect(resolver.calls.length).toBe(before);
  });

  it('allow-listed addresses (URL_ALLOWLIST_CIDRS), by literal and by name', async () => {
    const allow = { resolver, allowlist: parseCidrList('127.0.0.2/32') };
    expect((await checkPublicHttpsUrl('https://127.0.0.2:1234/', allow)).addresses).toEqual(['127.0.0.2']);
    expect((await checkPublicHttpsUrl('https://allowed.test/', allow)).addresses).toEqual(['127.0.0.2']);
    await refusal('https://127.0.0.1/', allow);
  });
});
