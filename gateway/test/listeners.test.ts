// What needs real listeners: a backing service that cannot be reached (its breaker), and requests
// Node's HTTP parser refuses, at the gateway and at Storage's signed-URL listener.
import { connect, createServer, type AddressInfo } from 'node:net';
import { loadConfig } from '@media/platform';
import { build, createClients, gatewayConfigSpec } from '@media/gateway';
import { startTestStack, type TestStack } from '@media/stack/testing';
import { settlesWithin } from '@media/testkit';

let stack: TestStack;
let authorization: string;
beforeAll(async () => {
  stack = await startTestStack();
  ({ authorization } = await stack.newAccount());
});
afterAll(() => stack?.close());

test('a backing service that is down -> 503 with Retry-After, answered quickly', async () => {
  const deadPort = await new Promise<number>((resolve) => {
    const srv = createServer().listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as AddressInfo;
      srv.close(() => resolve(port));
    });
  });
  const config = loadConfig(gatewayConfigSpec, {
    LOG_LEVEL: 'silent',
    INTERNAL_TOKEN: stack.internalToken('gateway'),
    AUTH_URL: stack.urls.auth,
    BILLING_URL: `http://127.0.0.1:${deadPort}`,
    JOBS_URL: stack.urls.jobs,
  });
  const clients = createClients(config);
  const app = await build({ config, clients, bus: stack.bus });
  try {
    for (let i = 0; i < 8; i++) {
      const res = await settlesWithin('a quick 503', app.inject({ method: 'GET', url: '/account', headers: { authorization } }), 5000);
      expect(res.statusCode).toBe(503);
      expect(res.json()).toEqual({ ok: false, error: 'A backing service is unavailable. Retry shortly.' });
      expect(res.headers['retry-after']).toBe('5');
      expect(res.headers['x-request-id']).toMatch(/^req_/);
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
