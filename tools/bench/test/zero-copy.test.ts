// The transfer bench's reference peer (native/zero-copy-http.c): its figures stand as the
// machine's ceiling only if it moves the exact bytes and fails loudly when it does not.
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { readFile, writeFile } from 'node:fs/promises';
import { createServer, request, type Server } from 'node:http';
import { join } from 'node:path';
import { tempDir } from '@media/testkit';
import { buildZeroCopy, target, type ZeroCopy } from '../src/lib/zero-copy.js';

let work: { path: string; remove: () => Promise<void> };
let dir: string;
let zc: ZeroCopy;
const data = randomBytes(3 * 1024 * 1024 + 17);

beforeAll(async () => {
  work = await tempDir('zero-copy-');
  dir = work.path;
  const log: string[] = [];
  const built = buildZeroCopy(dir, (line) => log.push(line));
  if (!built) throw new Error(`the peer did not build: ${log.join('; ')}`);
  zc = built;
  await writeFile(join(dir, 'source'), data);
});
afterAll(() => work.remove());

test('its server and client move a file both ways byte for byte', async () => {
  const server = await zc.serve(join(dir, 'source'), join(dir, 'uploaded'));
  try {
    await zc.get(server.url, join(dir, 'downloaded'));
    expect((await readFile(join(dir, 'downloaded'))).equals(data)).toBe(true);
    await zc.put(`${server.url}any/name?x=1`, {}, join(dir, 'source'));
    expect((await readFile(join(dir, 'uploaded'))).equals(data)).toBe(true);
  } finally {
    await server.stop();
  }
});

test('its server answers Expect: 100-continue, as curl asks before a large upload', async () => {
  // Without the 100, curl waits a second before sending the body, and the ceiling counts it.
  const server = await zc.serve(join(dir, 'source'), join(dir, 'uploaded-after-100'));
  try {
    const { port } = new URL(server.url);
    const status = await new Promise<number>((resolve, reject) => {
      const req = request({
        host: '127.0.0.1',
        port,
        method: 'PUT',
        path: '/x',
        headers: { expect: '100-continue', 'content-length': data.length },
      });
      req.on('continue', () => req.end(data)); // the body goes only once the server said 100
      req.on('response', (res) => resolve(res.statusCode!));
      req.on('error', reject);
      req.setTimeout(3000, () => req.destroy(new Error('no 100 Continue from the server')));
    });
    expect(status).toBe(200);
    expect((await readFile(join(dir, 'uploaded-after-100'))).equals(data)).toBe(true);
  } finally {
    await server.stop();
  }
});

describe('its client against a Node server', () => {
  let node: Server;
  let base: string;
  const seen: { url?: string; headers?: Record<string, unknown>; bytes: number }[] = [];
  beforeAll(async () => {
    node = createServer((req, res) => {
      const entry = { url: req.url, headers: req.headers, bytes: 0 };
      seen.push(entry);
      req.on('data', (c: Buffer) => (entry.bytes += c.length));
      req.on('end', () => {
        if (req.url?.startsWith('/refuse')) res.writeHead(403).end('no');
        else if (req.method === 'GET') res.writeHead(200, { 'content-length': data.length }).end(data);
        else res.writeHead(201).end();
      });
    });
    node.listen(0, '127.0.0.1');
    await once(node, 'listening');
    base = `http://127.0.0.1:${(node.address() as { port: number }).port}`;
  });
  afterAll(() => new Promise<void>((r) => node.close(() => r())));

  test('sends the path, query and headers it is given, and the whole body', async () => {
    await zc.put(`${base}/blob/a?sig=x%2Fy&max=5`, { 'content-type': 'video/mp4', 'x-extra': 'v' }, join(dir, 'source'));
    expect(seen.at(-1)).toMatchObject({
      url: '/blob/a?sig=x%2Fy&max=5',
      headers: { 'content-type': 'video/mp4', 'x-extra': 'v' },
      bytes: data.length,
    });
    await zc.get(`${base}/blob/a`, join(dir, 'from-node'));
    expect((await readFile(join(dir, 'from-node'))).equals(data)).toBe(true);
  });

  test('a non-2xx answer fails the step, with the status line', async () => {
    await expect(zc.get(`${base}/refuse`, join(dir, 'refused'))).rejects.toThrow('HTTP/1.1 403 Forbidden');
    await expect(zc.put(`${base}/refuse`, {}, join(dir, 'source'))).rejects.toThrow('HTTP/1.1 403 Forbidden');
  });
});

test('takes only http URLs on loopback (checked on the string, nothing is connected)', () => {
  expect(target('http://localhost:8080/blob/x?sig=1')).toEqual(['8080', 'blob/x?sig=1']);
  expect(target('http://127.0.0.1/')).toEqual(['80', '']);
  expect(() => target('https://127.0.0.1:1/')).toThrow('not an http URL on 127.0.0.1');
  expect(() => target('http://10.0.0.1:1/')).toThrow('not an http URL on 127.0.0.1');
});
