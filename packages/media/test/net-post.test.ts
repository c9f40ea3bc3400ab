// postJson (one webhook attempt) against an HTTPS receiver on 127.0.0.2 (allow-listed) with
// canaries on 127.0.0.1 and ::1 that must never be contacted: not by refusals, not via redirects.
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { DomainError } from '@media/platform';
import { type CanaryServer, type TestHttpsServer, startCanaryServer, startHttpsServer } from '@media/testkit';
import { NetTransportError, type PostJsonOptions, parseCidrList, postJson } from '../src/net/index.js';
import { canListen, fakeResolver, rejection } from './net-helpers.js';

const HAS_V6 = await canListen('::1');

let server: TestHttpsServer;
let canary: CanaryServer;
const canaries: CanaryServer[] = [];
const received: { method?: string; path?: string; headers: IncomingHttpHeaders; body: string }[] = [];

function handler(req: IncomingMessage, res: ServerResponse): void {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    received.push({ method: req.method, path: req.url, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
    if (req.url === '/hook') {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('thanks');
    } else if (req.url === '/moved') {
      res.writeHead(302, { location: `${canary.url}/hook` });
      res.end();
    } else if (req.url === '/big-answer') {
      res.writeHead(200);
      res.end(Buffer.alloc(2 * 1024 * 1024)); // more than postJson reads of an answer
    } else if (req.url === '/fail') {
      res.writeHead(503);
      res.end();
    }
    // '/hang': never answers
  });
}

const resolver = fakeResolver({
  'webhook.test': ['127.0.0.2'],
  'evil.test': ['127.0.0.1'],
  'mixed.test': ['127.0.0.2', '127.0.0.1'],
  'rebind.test': (call) => (call === 1 ? ['127.0.0.2'] : ['127.0.0.1']),
  'other.example': ['127.0.0.2'],
});

function opts(extra: Partial<PostJsonOptions> = {}): PostJsonOptions {
  return { allowlist: parseCidrList('127.0.0.2/32'), resolver, ca: server.ca, ...extra };
}

beforeAll(async () => {
  server = await startHttpsServer({ host: '127.0.0.2', handler });
  canary = await startCanaryServer('127.0.0.1');
  canaries.push(canary, await startCanaryServer('127.0.0.1', server.port));
  if (HAS_V6) canaries.push(await startCanaryServer('::1', server.port));
});

afterAll(async () => {
  await Promise.all([server?.stop(), ...canaries.map((c) => c.stop())]);
});

afterEach(() => {
  expect(canaries.map((c) => c.connections)).toEqual(canaries.map(() => 0));
});

const payload = { event: 'job.completed', job_id: 'job_abc123', result: [{ file_name: 'out.mp4', size_bytes: 42 }] };

describe('postJson delivers', () => {
  it('a JSON body with the given headers and returns the status', async () => {
    const r = await postJson(`https://webhook.test:${server.port}/hook`, payload, opts({ headers: { 'x-signature': 'sha256=abc' } }));
    expect(r).toEqual({ status: 200 });
    const got = received.at(-1)!;
    expect(got.method).toBe('POST');
    expect(got.path).toBe('/hook');
    expect(JSON.parse(got.body)).toEqual(payload);
    expect(got.headers['content-type']).toBe('application/json');
    expect(got.headers['x-signature']).toBe('sha256=abc');
    expect(got.headers['content-length']).toBe(String(Buffer.byteLength(JSON.stringify(payload))));
  });

  it('to a rebinding name: resolved once, connected to the checked address', async () => {
    const before = server.connections;
    expect(await postJson(`https://rebind.test:${server.port}/hook`, payload, opts())).toEqual({ status: 200 });
    expect(server.connections).toBe(before + 1);
    expect(resolver.calls.filter((c) => c === 'rebind.test')).toHaveLength(1);
  });

  it('and reports non-2xx answers as a status, not an error', async () => {
    expect(await postJson(`https://webhook.test:${server.port}/fail`, payload, opts())).toEqual({ status: 503 });
  });

  it('and does not read a large answer whole', async () => {
    expect(await postJson(`https://webhook.test:${server.port}/big-answer`, payload, opts())).toEqual({ status: 200 });
  });

  it('without following a 302 (the Location, a canary, is never contacted)', async () => {
    expect(await postJson(`https://webhook.test:${server.port}/moved`, payload, opts())).toEqual({ status: 302 });
  });
});

describe('postJson refuses before connecting, with a 400 DomainError', () => {
  it.each([
    ['https://127.0.0.1:CANARY/hook', 'URL host is a non-public address (127.0.0.1: loopback)'],
    ['https://localhost:CANARY/hook', 'URL host is not allowed: localhost'],
    ['https://evil.test:CANARY/hook', 'URL host resolves to a non-public address (127.0.0.1: loopback)'],
    ['https://mixed.test:PORT/hook', 'URL host resolves to a non-public address (127.0.0.1: loopback)'],
    ['https://[::1]:PORT/hook', 'URL host is a non-public address (::1: loopback)'],
    ['http://webhook.test:PORT/hook', 'URL must use HTTPS: http://webhook.test:PORT/hook'],
    ['https://user:pw@webhook.test:PORT/hook', 'URL must not contain credentials'],
  ])('%s', async (template, message) => {
    const fill = (s: string) => s.replace('CANARY', String(canary.port)).replace('PORT', String(server.port));
    const before = server.connections;
    const err = await rejection(postJson(fill(template), payload, opts()));
    expect(err).toBeInstanceOf(DomainError);
    expect(err.status).toBe(400);
    expect(err.message).toBe(fill(message));
    expect(server.connections).toBe(before);
  });
});

describe('postJson transport failures throw NetTransportError', () => {
  async function transport(url: string, o = opts()): Promise<NetTransportError> {
    const err = await rejection(postJson(url, payload, o));
    expect(err).toBeInstanceOf(NetTransportError);
    return err as NetTransportError;
  }

  it('timeout: the receiver never answers within timeoutMs', async () => {
    // The text names the deadline that expired: this call's 0.3 s, not the default's.
    const err = await transport(`https://webhook.test:${server.port}/hang`, opts({ timeoutMs: 300 }));
    expect(err.kind).toBe('timeout');
    expect(err.message).toBe('timed out after 0.3 s');
  });

  it('dns: the name does not resolve', async () => {
    const err = await transport(`https://nowhere.test:${server.port}/hook`);
    expect(err.kind).toBe('dns');
    expect(err.message).toBe('URL host could not be resolved: nowhere.test');
  });

  it('tls: certificate not trusted, or not for this name', async () => {
    expect((await transport(`https://webhook.test:${server.port}/hook`, opts({ ca: undefined }))).kind).toBe('tls');
    expect((await transport(`https://other.example:${server.port}/hook`)).kind).toBe('tls');
  });

  it('connect: nothing listens on the allowed address', async () => {
    const gone = await startHttpsServer({ host: '127.0.0.2', handler });
    const port = gone.port;
    await gone.stop();
    const err = await transport(`https://127.0.0.2:${port}/hook`);
    expect(err.kind).toBe('connect');
    expect(err.message).toBe('connection refused (ECONNREFUSED)');
  });
});
