// Connection hygiene at the gateway: a refused request's body is not read (answer, then close),
// a body that trickles is cut at the request timeout, headers must come in time, and one address
// cannot hold more than its share of connections: a flood of slow bodies from one address (a
// second loopback address, 127.0.0.2) leaves another client's requests answered.
import { once } from 'node:events';
import { connect, type Socket } from 'node:net';
import { startTestStack, type TestStack } from '@media/stack/testing';

const PER_ADDRESS = 8;
let stack: TestStack;
let authorization: string;
let port: number;
const sockets: Socket[] = [];

beforeAll(async () => {
  stack = await startTestStack({
    CONNECTIONS_PER_ADDRESS: String(PER_ADDRESS),
    GATEWAY_REQUEST_TIMEOUT_SEC: '3',
    HTTP_HEADERS_TIMEOUT_SEC: '2',
  });
  ({ authorization } = await stack.newAccount());
  port = Number(new URL(stack.gatewayUrl).port);
});

afterAll(async () => {
  for (const s of sockets) s.destroy();
  await stack?.close();
});

interface Raw {
  socket: Socket;
  /** Everything answered, once the connection closed. */
  closed: Promise<{ answer: string }>;
}

/** The order in which `raws` closed (their indexes). */
async function closingOrder(raws: Raw[]): Promise<number[]> {
  const order: number[] = [];
  await Promise.all(raws.map((r, i) => r.closed.then(() => order.push(i))));
  return order;
}

/** A raw connection from `from` (a loopback address) that writes `bytes` and keeps what comes back. */
async function rawFrom(from: string, bytes: string): Promise<Raw> {
  const socket = connect({ port, host: '127.0.0.1', localAddress: from });
  sockets.push(socket);
  await once(socket, 'connect');
  let answer = '';
  socket.setEncoding('latin1');
  socket.on('data', (d: string) => (answer += d));
  socket.on('error', () => undefined);
  const closed = once(socket, 'close').then(() => ({ answer }));
  socket.write(bytes);
  return { socket, closed };
}

const slowPost = (auth?: string) =>
  `POST /directory HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n${auth ? `Authorization: ${auth}\r\n` : ''}\r\n{`;

const statusOf = (answer: string) => Number(answer.slice(9, 12));
const bodyOf = (answer: string) => JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4));

test('a request refused before its body is read is answered, and its connection closed without waiting for the body', async () => {
  // A witness the gateway cuts at the request timeout: an accepted request whose body never comes.
  const witness = await rawFrom('127.0.0.1', slowPost(authorization));
  let witnessClosed = false;
  void witness.closed.then(() => (witnessClosed = true));
  const raw = await rawFrom('127.0.0.1', slowPost());
  const { answer } = await raw.closed;
  const witnessOpen = !witnessClosed;
  witness.socket.destroy();
  expect(statusOf(answer)).toBe(401);
  expect(answer).toMatch(/\r\nconnection: close\r\n/i);
  expect(answer).toMatch(/\r\nx-request-id: /i);
  expect(bodyOf(answer)).toEqual({ ok: false, error: 'Authorization Header Required' });
  // 997 body bytes never came: the connection did not wait for them (nor for the request timeout,
  // which closed the witness).
  expect(witnessOpen).toBe(true);
});

test('a body that trickles is cut at the request timeout, in the API error shape', async () => {
  // A witness the gateway cuts earlier, at the headers timeout (2 s, checked each second; the request timeout is 3 s).
  const witness = await rawFrom('127.0.0.1', 'GET /account HTTP/1.1\r\nHost: x\r\n');
  const raw = await rawFrom('127.0.0.1', slowPost(authorization));
  const order = closingOrder([raw, witness]);
  const keepAlive = setInterval(() => raw.socket.write(' '), 500);
  const { answer } = await raw.closed;
  clearInterval(keepAlive);
  expect(statusOf(answer)).toBe(400);
  expect(bodyOf(answer)).toEqual({ ok: false, error: 'The request was not received in full in time' });
  // Cut after the headers timeout's cut: by the request timeout, though bytes kept coming.
  expect(await order).toEqual([1, 0]);
});

test('headers that do not come in time close the connection', async () => {
  const raw = await rawFrom('127.0.0.1', 'GET /account HTTP/1.1\r\nHost: x\r\n');
  const { answer } = await raw.closed;
  expect(statusOf(answer)).toBe(400);
  expect(bodyOf(answer).error).toBe('The request was not received in full in time');
});

test('a slow-body flood from one address gets its share of connections; another client is still served', async () => {
  // 3x the cap, with a valid key: each would hold its connection until the request timeout.
  const flood = await Promise.all(Array.from({ length: 3 * PER_ADDRESS }, () => rawFrom('127.0.0.2', slowPost(authorization))));
  const served = await fetch(`${stack.gatewayUrl}/account`, { headers: { authorization } });
  expect(served.status).toBe(200);
  // While the flood's first connections still wait for their bodies, the rest were refused.
  const answers = await Promise.all(flood.map((f) => f.closed));
  const refused = answers.filter((a) => statusOf(a.answer) === 429);
  expect(refused.length).toBe(2 * PER_ADDRESS);
  expect(bodyOf(refused[0]!.answer)).toEqual({
    ok: false,
    error: `Too many connections from your address: at most ${PER_ADDRESS} at once. Close idle connections and retry.`,
  });
  expect(refused[0]!.answer).toMatch(/\r\nretry-after: 1\r\n/i);
  expect(answers.filter((a) => statusOf(a.answer) === 400)).toHaveLength(PER_ADDRESS); // cut at the request timeout
  // Once they are gone, the address is served again.
  const again = await rawFrom(
    '127.0.0.2',
    `GET /account HTTP/1.1\r\nHost: x\r\nAuthorization: ${authorization}\r\nConnection: close\r\n\r\n`,
  );
  expect(statusOf((await again.closed).answer)).toBe(200);
}, 20_000);
