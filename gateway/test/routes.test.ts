// The spec's routing rules: unknown paths and methods, retired and reserved endpoints.
import { connect, createServer, type AddressInfo } from 'node:net';
import { loadConfig } from '@media/platform';
import { build, createClients, gatewayConfigSpec } from '@media/gateway';
import { startTestStack, type TestStack } from '@media/stack';

let stack: TestStack;
let authorization: string;
beforeAll(async () => {
  stack = await startTestStack();
  ({ authorization } = await stack.newAccount());
});
afterAll(() => stack?.close());

const inject = (method: string, url: string, opts: { body?: string; auth?: boolean; type?: string } = {}) =>
  stack.gateway.app.inject({
    method: method as 'GET',
    url,
    payload: opts.body,
    headers: { ...(opts.auth === false ? {} : { authorization }), ...(opts.type ? { 'content-type': opts.type } : {}) },
  });

test.each([
  ['GET', '/'],
  ['GET', '/nope'],
  ['DELETE', '/account'],
  ['POST', '/account'],
  ['HEAD', '/account'],
  ['OPTIONS', '/account'],
  ['GET', '/account/'],
  ['GET', '/v1/account'],
  ['GET', '/ffmpeg/run'],
])('%s %s -> 404 with the error shape and X-Request-Id', async (method, url) => {
  const res = await inject(method, url);
  expect(res.statusCode).toBe(404);
  expect(res.headers['x-request-id']).toMatch(/^req_/);
  if (method !== 'HEAD') expect(res.json()).toEqual({ ok: false, error: expect.stringContaining('No endpoint') });
});

test.each([
  ['/file/dir_abc/%ZZ', 'The URL path is not valid: each % must be followed by two hexadecimal digits.'],
  [`/file/dir_abc/${'a'.repeat(5000)}`, 'A segment of the URL path is longer than 4096 characters.'],
])('GET %#: a path the router refuses -> 400 with the error shape and X-Request-Id', async (url, error) => {
  const res = await inject('GET', url);
  expect(res.statusCode).toBe(400);
  expect(res.headers['x-request-id']).toMatch(/^req_/);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  expect(res.json()).toEqual({ ok: false, error });
});

test('POST /ffmpeg/run -> 410 always: with or without key, with any body', async () => {
  for (const opts of [
    {},
    { auth: false },
    { body: '{"task":{}}', type: 'application/json' },
    { body: 'not json', type: 'application/json' },
    { body: 'x'.repeat(300_000) },
  ]) {
    const res = await inject('POST', '/ffmpeg/run', opts);
    expect(res.statusCode).toBe(410);
    expect(res.json()).toEqual({ ok: false, error: 'POST /ffmpeg/run is retired. Use POST /ffmpeg/process.' });
    expect(res.headers['x-request-id']).toMatch(/^req_/);
  }
});

test.each(['/ai/ffmpeg/process', '/ai/ffmpeg/process/async', '/ai/ffprobe/analyze'])('POST %s -> 501', async (url) => {
  for (const auth of [true, false]) {
    const res = await inject('POST', url, { auth, body: '{}', type: 'application/json' });
    expect(res.statusCode).toBe(501);
    expect(res.json()).toEqual({ ok: false, error: 'The /ai endpoints are not offered.' });
  }
});

test('GET /account with an unknown query parameter -> 400 naming it', async () => {
  const res = await inject('GET', '/account?foo=1');
  expect(res.statusCode).toBe(400);
  expect(res.json()).toEqual({ ok: false, error: "Unknown field 'foo' in query string" });
});

test('X-Request-Id differs per request and is not taken from the client', async () => {
  const a = await stack.gateway.app.inject({ method: 'GET', url: '/account', headers: { authorization, 'x-request-id': 'mine' } });
  const b = await inject('GET', '/account');
  expect(a.headers['x-request-id']).not.toBe('mine');
  expect(a.headers['x-request-id']).not.toBe(b.headers['x-request-id']);
});

test('a backing service that is down -> 503 with Retry-After, answered quickly', async () => {
  const deadPort = await new Promise<number>((resolve) => {
    const srv = createServer().listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as AddressInfo;
      srv.close(() => resolve(port));
    });
  });
  const config = loadConfig(gatewayConfigSpec, {
    LOG_LEVEL: 'silent',
    AUTH_URL: stack.urls.auth,
    BILLING_URL: `http://127.0.0.1:${deadPort}`,
    JOBS_URL: stack.urls.jobs,
  });
  const clients = createClients(config);
  const app = await build({ config, clients, bus: stack.bus });
  try {
    for (let i = 0; i < 8; i++) {
      const started = Date.now();
      const res = await app.inject({ method: 'GET', url: '/account', headers: { authorization } });
      expect(res.statusCode).toBe(503);
      expect(res.json()).toEqual({ ok: false, error: 'A backing service is unavailable. Retry shortly.' });
      expect(res.headers['retry-after']).toBe('5');
      expect(res.headers['x-request-id']).toMatch(/^req_/);
      expect(Date.now() - started).toBeLessThan(5000);
    }
  } finally {
    await app.close();
    clients.close();
  }
});

/** Sends raw bytes to a listener (the gateway's by default); resolves with everything it answered before closing. */
function rawRequest(bytes: string, url = stack.gatewayUrl): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.write(bytes));
    let answer = '';
    socket.setEncoding('latin1');
    socket.on('data', (d: string) => (answer += d));
    socket.on('error', reject);
    socket.on('close', () => resolve(answer));
    socket.setTimeout(5000, () => socket.destroy(new Error(`no answer to ${JSON.stringify(bytes.slice(0, 60))}`)));
  });
}

test.each([
  [
    'an invalid Content-Length',
    'GET /account HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n',
    /^Malformed HTTP request: .*Content-Length/,
  ],
  [
    'Content-Length with chunked encoding',
    'POST /file HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
    /^Malformed HTTP request/,
  ],
  ['a garbage request line', 'GARBAGE\r\n\r\n', /^Malformed HTTP request/],
  [
    'headers over 16 KiB',
    `GET /account HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
    /^Request headers are larger than 16 KiB \(16,384 bytes\)$/,
  ],
])(
  'a request the HTTP parser refuses (%s) -> 400 in the error shape with X-Request-Id, at the gateway and at the signed-URL listener',
  async (_what, bytes, message) => {
    // Local-disk signed URLs are served by Storage's own listener (its PUTs and GETs come from users too).
    const listeners = [stack.gatewayUrl, ...(stack.publicBaseUrl ? [stack.publicBaseUrl.replace('localhost', '127.0.0.1')] : [])];
    if (stack.adapters === 'embedded') expect(listeners).toHaveLength(2);
    for (const url of listeners) {
      const answer = await rawRequest(bytes.replace('/account', url === stack.gatewayUrl ? '/account' : '/blob/x'), url);
      const [head, body] = answer.split('\r\n\r\n');
      expect(head).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
      expect(head).toMatch(/\r\nX-Request-Id: req_[a-z0-9]{20}\r\n/);
      expect(head).toMatch(/\r\nContent-Type: application\/json\r\n/);
      const json = JSON.parse(body!);
      expect(json).toEqual({ ok: false, error: expect.stringMatching(message) });
    }
  },
);
