// The Idempotency-Key header's own rule (1 to 255 visible ASCII characters), checked before the
// request is done: the fast level (build() on in-memory services, in-memory.ts). Replays, one
// job and one charge per key are tested on a stack in idempotency.test.ts.
import { buildInMemoryGateway, type InMemoryGateway } from './in-memory.js';

let gateway: InMemoryGateway;
beforeAll(async () => {
  gateway = await buildInMemoryGateway();
});
afterAll(() => gateway?.close());

test.each([
  ['', 'empty'],
  ['has space', 'a space'],
  ['x'.repeat(256), 'too long'],
  ['caf\u00e9', 'not ASCII'],
])('a malformed key (%#: %s) -> 400 naming the rule, nothing done', async (key) => {
  const from = gateway.calls.length;
  const res = await gateway.app.inject({
    method: 'POST',
    url: '/directory',
    headers: { authorization: gateway.authorization, 'content-type': 'application/json', 'idempotency-key': key },
    payload: '{}',
  });
  expect(res.statusCode).toBe(400);
  expect(res.json().error).toMatch(/^Idempotency-Key must be 1 to 255 visible ASCII characters/);
  // Nothing done: no directory created (Storage never asked), no key begun with Auth; only the
  // key check and the rate count reach Auth.
  const authOnly = ['media.auth.v1.AuthService/Authenticate', 'media.auth.v1.AuthService/CountRequests'];
  expect(gateway.calls.slice(from).filter((c) => !authOnly.includes(c))).toEqual([]);
});
