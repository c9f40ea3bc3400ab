// The signed-URL listener closes a connection on which nothing moves (a client that stopped
// reading a download, or that connected and sent nothing), and never cuts a transfer that is
// moving, however slowly, nor an upload whose last byte is in while the server finishes it: its
// only timeout is an idle one, on the client.
import { once } from 'node:events';
import { connect, type Socket } from 'node:net';
import { BLOB_PATH } from '@media/blobstore';
import { createLogger } from '@media/platform';
import { listenSignedUrls, type SignedUrlListener } from '../src/adapters/signed-url-listener.js';

const IDLE_MS = 800;
let listener: SignedUrlListener;
let downloadEnded: Promise<string>;
const sockets: Socket[] = [];
/** Client ports of the connections the listener closed for being idle. */
const idleClosed: (number | undefined)[] = [];

beforeAll(async () => {
  listener = await listenSignedUrls('127.0.0.1', 0, createLogger('test', 'silent'), {
    idleTimeoutMs: IDLE_MS,
    onIdleClose: (port) => idleClosed.push(port),
  });
  let ended: (how: string) => void;
  downloadEnded = new Promise((resolve) => (ended = resolve));
  listener.setHandler((req, res) => {
    if (req.method === 'GET') {
      // An endless body: the client decides how much it reads.
      const chunk = Buffer.alloc(256 * 1024);
      const pump = () => {
        while (!res.destroyed && res.write(chunk));
      };
      res.on('drain', pump);
      res.on('close', () => ended(res.writableFinished ? 'finished' : 'closed unfinished'));
      res.writeHead(200);
      pump();
      return;
    }
    let bytes = 0;
    req.on('data', (c: Buffer) => (bytes += c.length));
    // Answers well after the idle timeout: the server's own work (a final fsync) must not be cut.
    req.on('end', () => setTimeout(() => res.end(String(bytes)), 2 * IDLE_MS));
  });
});
afterAll(async () => {
  for (const s of sockets) s.destroy();
  await listener.close();
});

function open(): Promise<Socket> {
  const socket = connect(listener.port, '127.0.0.1');
  sockets.push(socket);
  return once(socket, 'connect').then(() => socket);
}

test('a download whose client stops reading is closed, and its transfer ends', async () => {
  const socket = await open();
  socket.write(`GET ${BLOB_PATH}x HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
  await once(socket, 'data');
  socket.pause(); // reads nothing more: the server's writes stall
  expect(await downloadEnded).toBe('closed unfinished');
  socket.resume();
  await once(socket, 'close');
});

test('a connection that sends nothing is closed', async () => {
  const socket = await open();
  const port = socket.localPort;
  await once(socket, 'close');
  // Closed by the idle timeout (nothing moved for IDLE_MS), not by anything sooner.
  expect(idleClosed).toContain(port);
});

test('a slow upload that keeps sending is not cut, though it lasts several idle timeouts, nor is its late answer', async () => {
  const socket = await open();
  let answer = '';
  socket.on('data', (d) => (answer += String(d)));
  const ended = once(socket, 'end');
  const pieces = 20; // one every IDLE_MS / 8: 2.5 idle timeouts in all, with room for a loaded machine
  socket.write(`PUT ${BLOB_PATH}x HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: ${pieces * 10}\r\nConnection: close\r\n\r\n`);
  for (let i = 0; i < pieces; i++) {
    await new Promise((r) => setTimeout(r, IDLE_MS / 8));
    socket.write('x'.repeat(10));
  }
  await ended;
  expect(answer).toMatch(/^HTTP\/1.1 200/);
  expect(answer.endsWith(`\r\n\r\n${pieces * 10}`)).toBe(true); // every byte arrived
}, 15_000);

describe('a listener with a rate floor and connection caps', () => {
  let capped: SignedUrlListener;
  beforeAll(async () => {
    capped = await listenSignedUrls('127.0.0.1', 0, createLogger('test', 'silent'), {
      idleTimeoutMs: 10_000,
      minUploadBytesPerSec: 1000,
      rateWindowMs: 500,
      caps: { perAddress: 2, total: 0 },
    });
    capped.setHandler((req, res) => {
      let bytes = 0;
      req.on('data', (c: Buffer) => (bytes += c.length));
      req.on('end', () => res.end(String(bytes)));
    });
  });
  afterAll(() => capped.close());

  const openCapped = () => {
    const socket = connect(capped.port, '127.0.0.1');
    sockets.push(socket);
    let answer = '';
    socket.setEncoding('latin1');
    socket.on('data', (d: string) => (answer += d));
    socket.on('error', () => undefined);
    return { socket, closed: once(socket, 'close').then(() => answer), connected: once(socket, 'connect') };
  };

  test('an upload that trickles below the floor is cut; one that moves completes', async () => {
    const slow = openCapped();
    await slow.connected;
    slow.socket.write(`PUT ${BLOB_PATH}x HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n`);
    // 10 bytes every 200 ms: never idle, but 50 B/s against a floor of 1,000.
    let drops = 0;
    const drip = setInterval(() => (drops++, slow.socket.write('0123456789')), 200);
    await slow.closed;
    clearInterval(drip);
    // Cut within a few of the floor's 500 ms windows (the whole body would take 10,000 drops).
    expect(drops).toBeLessThan(25);

    const body = Buffer.alloc(100_000, 1);
    const ok = await fetch(`http://127.0.0.1:${capped.port}${BLOB_PATH}y`, { method: 'PUT', body });
    expect(await ok.text()).toBe('100000');
  });

  test('connections over the per-address cap are answered 429 in the API shape and closed', async () => {
    const held = [openCapped(), openCapped()];
    await Promise.all(held.map((h) => h.connected));
    const third = openCapped();
    await third.connected;
    third.socket.write(`GET ${BLOB_PATH}x HTTP/1.1\r\nHost: x\r\n\r\n`);
    const answer = await third.closed;
    expect(answer.slice(9, 12)).toBe('429');
    expect(answer).toMatch(/\r\nx-request-id: /i);
    expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))).toEqual({
      ok: false,
      error: 'Too many connections from your address: at most 2 at once. Close idle connections and retry.',
    });
    for (const h of held) h.socket.destroy();
    await Promise.all(held.map((h) => h.closed));
    const after = await fetch(`http://127.0.0.1:${capped.port}${BLOB_PATH}z`, { method: 'PUT', body: 'abc' });
    expect(await after.text()).toBe('3');
  });
});
