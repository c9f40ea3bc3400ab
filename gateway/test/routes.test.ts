// The spec's routing rules: unknown paths and methods, retired and reserved endpoints, paths the
// router refuses, request ids. The fast level: build() on in-memory services (in-memory.ts).
import { buildInMemoryGateway, type InMemoryGateway } from './in-memory.js';

let gateway: InMemoryGateway;
let authorization: string;
beforeAll(async () => {
  gateway = await buildInMemoryGateway({ storage: { listDirectories: () => ({ directories: [] }) } });
  ({ authorization } = gateway);
});
afterAll(() => gateway?.close());

const inject = (method: string, url: string, opts: { body?: string; auth?: boolean; type?: string } = {}) =>
  gateway.app.inject({
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
  const a = await gateway.app.inject({ method: 'GET', url: '/directory', headers: { authorization, 'x-request-id': 'mine' } });
  const b = await inject('GET', '/directory');
  expect([a.statusCode, b.statusCode]).toEqual([200, 200]);
  expect(gateway.calls).toContain('media.storage.v1.StorageService/ListDirectories');
  expect(a.headers['x-request-id']).toMatch(/^req_/);
  expect(a.headers['x-request-id']).not.toBe('mine');
  expect(a.headers['x-request-id']).not.toBe(b.headers['x-request-id']);
});

test('routing, refusals and unknown paths never reach a backing service but Auth', async () => {
  const before = gateway.calls.filter((c) => !c.startsWith('media.auth.')).length;
  await inject('GET', '/nope');
  await inject('POST', '/ffmpeg/run', { body: '{}', type: 'application/json' });
  await inject('GET', '/account?foo=1');
  expect(gateway.calls.filter((c) => !c.startsWith('media.auth.')).length).toBe(before);
});
