// Resending on 429/503 after Retry-After, and what a failed call throws.
import { MediaApiError, MediaClient, retryingFetch } from '@media/client';

/** A fetch answering from a script, recording what it was sent. */
function scripted(answers: (() => Response)[]) {
  const sent: { idempotencyKey: string | null; body: string }[] = [];
  const fake: typeof fetch = async (input, init) => {
    const req = new Request(input, init);
    sent.push({ idempotencyKey: req.headers.get('idempotency-key'), body: await req.text() });
    const next = answers.shift();
    if (!next) throw new TypeError('fetch failed');
    return next();
  };
  return { fake, sent };
}

const json =
  (status: number, body: unknown, headers: Record<string, string> = {}) =>
  () =>
    new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', 'x-request-id': 'req_1', ...headers } });

test('a 503 and a 429 are resent after their Retry-After, with the same body and Idempotency-Key', async () => {
  const { fake, sent } = scripted([
    json(503, { ok: false, error: 'Too busy' }, { 'retry-after': '0' }),
    json(429, { ok: false, error: 'Rate limit' }, { 'retry-after': '0.05' }),
    json(200, { ok: true, directory: { id: 'dir_a', ttl: 60 } }),
  ]);
  const waits: number[] = [];
  const client = new MediaClient({
    baseUrl: 'http://127.0.0.1:1',
    apiKey: 'mk_x',
    fetch: fake,
    retry: { onRetry: (r) => waits.push(r.waitSec) },
  });
  expect(await client.createDirectory(60)).toEqual({ ok: true, directory: { id: 'dir_a', ttl: 60 } });
  expect(waits).toEqual([0, 0.05]);
  expect(sent).toHaveLength(3);
  expect(new Set(sent.map((s) => s.body))).toEqual(new Set(['{"ttl":60}']));
  expect(sent[0]!.idempotencyKey).toMatch(/^[0-9a-f-]{36}$/);
  expect(new Set(sent.map((s) => s.idempotencyKey)).size).toBe(1);
});

test('a Retry-After beyond the wait allowed, or retries used up: the error is thrown, typed', async () => {
  const { fake, sent } = scripted([json(429, { ok: false, error: 'Rate limit exceeded' }, { 'retry-after': '600' })]);
  const client = new MediaClient({ baseUrl: 'http://127.0.0.1:1', apiKey: 'mk_x', fetch: fake });
  const err = (await client.account().catch((e: unknown) => e)) as MediaApiError;
  expect(err).toBeInstanceOf(MediaApiError);
  expect(err).toMatchObject({ status: 429, kind: 'busy', error: 'Rate limit exceeded', requestId: 'req_1', retryAfterSec: 600 });
  expect(sent).toHaveLength(1);

  const again = scripted(Array.from({ length: 3 }, () => json(503, { ok: false, error: 'Busy' }, { 'retry-after': '0' })));
  const limited = new MediaClient({ baseUrl: 'http://127.0.0.1:1', apiKey: 'mk_x', fetch: again.fake, retry: { retries: 2 } });
  await expect(limited.account()).rejects.toMatchObject({ status: 503, kind: 'busy' });
  expect(again.sent).toHaveLength(3);
});

test('no answer at all: a network error after the retries', async () => {
  const { fake, sent } = scripted([]);
  const fetchWithRetry = retryingFetch(fake, { retries: 1, defaultWaitSec: 0 });
  const client = new MediaClient({ baseUrl: 'http://127.0.0.1:1', apiKey: 'Basic mk_x', fetch: fetchWithRetry, retry: false });
  await expect(client.account()).rejects.toMatchObject({ status: 0, kind: 'network' });
  expect(sent).toHaveLength(2);
});

test('the key is sent as the console shows it', async () => {
  let authorization: string | null = null;
  const client = new MediaClient({
    baseUrl: 'http://127.0.0.1:1/',
    apiKey: 'mk_abc',
    fetch: async (input, init) => {
      authorization = new Request(input, init).headers.get('authorization');
      return json(200, { ok: true })();
    },
  });
  await client.account();
  expect(authorization).toBe('Basic mk_abc');
});
