// Webhook delivery end to end against a loopback HTTPS receiver (127.0.0.2, allow-listed): the
// documented body and signature, retries with the schedule, timeouts, no redirects, and the URL
// checks that refuse before connecting (a canary on 127.0.0.1 must never see a connection).
import { execFile } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { DocStore } from '@media/docstore';
import { parseCidrList } from '@media/media';
import { DomainError } from '@media/platform';
import { type CanaryServer, startCanaryServer, tempDir } from '@media/testkit';
import { jest } from '@jest/globals';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { type WebhookBody, type WebhookDeliverer, createWebhookDeliverer } from '../src/webhooks/index.js';
import {
  OTHER_SECRET,
  ROTATED_SECRET,
  type Receiver,
  SECRET,
  openJobsStore,
  silentLogger,
  standardHeaders,
  startReceiver,
  waitFor,
} from './webhooks-receiver.js';

/** The Python block under "Without a library" in docs/api/webhooks.md, without its list indent. */
async function docsPython(): Promise<string> {
  const doc = await readFile(new URL('../../../docs/api/webhooks.md', import.meta.url), 'utf8');
  const block = /Without a library[\s\S]*?\n( *)```python\n([\s\S]*?)\n *```/.exec(doc);
  if (!block) throw new Error('docs/api/webhooks.md has no Python block under "Without a library"');
  const indent = block[1]!.length;
  return block[2]!
    .split('\n')
    .map((line) => line.slice(indent))
    .join('\n');
}
const PYTHON_MAIN = [
  'import json, os',
  'ok = verify_webhook(os.environ["SECRET"], json.loads(os.environ["HEADERS"]), open("body.json", "rb").read())',
  'print("valid" if ok else "INVALID")',
].join('\n');

const SCHEDULE = [60, 60, 60, 60, 60];

let receiver: Receiver;
let canary: CanaryServer;
let dir: Awaited<ReturnType<typeof tempDir>>;
let store: DocStore;
let deliverer: WebhookDeliverer;
const secretCalls: string[] = [];
/**
 * The deliverer's clock: the real one, unless a test holds it at a time (then nothing becomes due
 * until the test moves it), so a retry's schedule is read from the record, not from arrival gaps.
 */
let heldAt: number | undefined;

beforeAll(async () => {
  receiver = await startReceiver();
  canary = await startCanaryServer('127.0.0.1');
  dir = await tempDir('jobs-webhooks-');
  store = await openJobsStore(dir.path);
  deliverer = await createWebhookDeliverer({
    store,
    getSecrets: async (accountId) => {
      secretCalls.push(accountId);
      // 'acc_down': Auth is unreachable the first time it is asked.
      if (accountId === 'acc_down' && secretCalls.filter((a) => a === accountId).length === 1) throw new Error('Auth unavailable');
      // 'acc_rotating': a rotation's grace period, the replaced secret still signing.
      return accountId === 'acc_rotating' ? [SECRET, ROTATED_SECRET] : [SECRET];
    },
    logger: silentLogger,
    allowlist: parseCidrList('127.0.0.2/32'),
    ca: receiver.server.ca,
    scheduleMs: SCHEDULE,
    // Long enough that a first TLS handshake on a loaded 2-core machine never reaches it (it did at
    // 400 ms); only the hanging receiver below waits for it.
    attemptTimeoutMs: 2000,
    pollIntervalMs: 20,
    now: () => heldAt ?? Date.now(),
  });
  deliverer.start();
});

afterAll(async () => {
  await deliverer?.stop();
  await store?.close();
  await Promise.all([receiver?.stop(), canary?.stop()]);
  await dir?.remove();
});

afterEach(() => {
  heldAt = undefined;
  expect(canary.connections).toBe(0);
});

let jobSeq = 0;
const newJobId = () => {
  jobSeq += 1;
  return `job_test${jobSeq}`;
};

function completedBody(jobId: string): WebhookBody {
  return {
    event: 'job.completed',
    job_id: jobId,
    status: 'completed',
    request_id: jobId,
    result: [{ file_name: 'out.mp4', size_bytes: 123456, download_url: 'https://files.example/out.mp4?sig=abc' }],
    usage: { time_sec: 2.5, input_size_gb: 0.001, output_size_gb: 0.0005, gb_sec: 0.00375 },
    amount_usd: 0.00005,
    completed_at: '2025-01-02T03:04:05.000Z',
  };
}

const settled = (jobId: string) => async () => (await deliverer.status(jobId))?.state !== 'pending';
/** The outcome of attempt `n` is recorded (while an attempt runs, the record still shows the one before). */
const recorded = (jobId: string, n: number) => async () => {
  const s = await deliverer.status(jobId);
  return s !== null && s.attempts === n && (s.state !== 'pending' || s.lastError !== null);
};
/**
 * A later delivery by the same deliverer, to another route, has been made: an extra attempt of
 * an earlier one, had it been due, would have been claimed by then (instead of a quiet period).
 */
async function laterDeliveryMade(): Promise<void> {
  const marker = receiver.route(() => 200);
  const jobId = newJobId();
  await deliverer.enqueue({ jobId, accountId: 'acc_1', url: marker.url, body: completedBody(jobId) });
  await waitFor(settled(jobId));
  expect(marker.arrivals).toHaveLength(1);
}

describe('a delivery', () => {
  it('arrives once with the documented body, headers and a signature that verifies', async () => {
    const route = receiver.route(() => 200);
    const jobId = newJobId();
    const body = completedBody(jobId);
    await deliverer.enqueue({ jobId, accountId: 'acc_1', url: route.url, body });
    await waitFor(settled(jobId));

    expect(await deliverer.status(jobId)).toEqual({
      jobId,
      state: 'delivered',
      attempts: 1,
      nextAttemptAt: null,
      lastStatus: 200,
      lastError: null,
    });
    expect(route.arrivals).toHaveLength(1);
    const [got] = route.arrivals;
    expect(got!.body).toBe(JSON.stringify(body));
    expect(JSON.parse(got!.body)).toEqual(body);
    expect(got!.headers['content-type']).toBe('application/json');
    expect(got!.headers['user-agent']).toBe('media-service-webhook/1');
    expect(got!.headers['webhook-id']).toBe(jobId);
    expect(got!.headers['webhook-attempt']).toBe('1');
    const ts = got!.headers['webhook-timestamp'] as string;
    expect(ts).toMatch(/^\d+$/);
    expect(Math.abs(Date.now() / 1000 - Number(ts))).toBeLessThan(5);
    expect(got!.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    // Verified by Standard Webhooks' own library, not by code of ours.
    const headers = standardHeaders(got!.headers);
    expect(new Webhook(SECRET).verify(got!.body, headers)).toEqual(body);
    expect(() => new Webhook(OTHER_SECRET).verify(got!.body, headers)).toThrow(WebhookVerificationError);
    // Tampered: another body, or this body under another delivery's id.
    expect(() => new Webhook(SECRET).verify(got!.body.replace('out.mp4', 'evil.mp4'), headers)).toThrow(WebhookVerificationError);
    expect(() => new Webhook(SECRET).verify(got!.body, { ...headers, 'webhook-id': 'job_other' })).toThrow(WebhookVerificationError);
    // Replay: the same delivery presented 6 minutes later is refused (the library's 5-minute tolerance).
    const later = jest.spyOn(Date, 'now').mockReturnValue((Number(ts) + 360) * 1000);
    try {
      expect(() => new Webhook(SECRET).verify(got!.body, headers)).toThrow(WebhookVerificationError);
    } finally {
      later.mockRestore();
    }

    // docs/api/webhooks.md's Python check without a library, as written there, accepts it too.
    await writeFile(join(dir.path, 'body.json'), got!.body);
    const python = async (secret: string) =>
      (
        await promisify(execFile)('python3', ['-c', `${await docsPython()}\n${PYTHON_MAIN}`], {
          cwd: dir.path,
          env: { PATH: process.env.PATH, SECRET: secret, HEADERS: JSON.stringify(headers) },
        })
      ).stdout.trim();
    expect(await python(SECRET)).toBe('valid');
    expect(await python(OTHER_SECRET)).toBe('INVALID');
  });

  it('during a rotation carries one signature per secret: receivers holding either verify', async () => {
    const route = receiver.route(() => 200);
    const jobId = newJobId();
    const body = completedBody(jobId);
    await deliverer.enqueue({ jobId, accountId: 'acc_rotating', url: route.url, body });
    await waitFor(settled(jobId));
    const [got] = route.arrivals;
    expect(String(got!.headers['webhook-signature']).split(' ')).toHaveLength(2);
    const headers = standardHeaders(got!.headers);
    expect(new Webhook(SECRET).verify(got!.body, headers)).toEqual(body);
    expect(new Webhook(ROTATED_SECRET).verify(got!.body, headers)).toEqual(body);
    expect(() => new Webhook(OTHER_SECRET).verify(got!.body, headers)).toThrow(WebhookVerificationError);
  });

  it('of a failed job carries the error and no result', async () => {
    const route = receiver.route(() => 204);
    const jobId = newJobId();
    const body: WebhookBody = {
      event: 'job.failed',
      job_id: jobId,
      status: 'failed',
      request_id: jobId,
      error: 'Processing timed out',
      completed_at: '2025-01-02T03:04:05.000Z',
    };
    await deliverer.enqueue({ jobId, accountId: 'acc_1', url: route.url, body });
    await waitFor(settled(jobId));
    expect((await deliverer.status(jobId))?.state).toBe('delivered');
    expect(JSON.parse(route.arrivals[0]!.body)).toEqual(body);
  });

  it('is enqueued once per job: a second enqueue is ignored', async () => {
    const route = receiver.route(() => 200);
    const other = receiver.route(() => 200);
    const jobId = newJobId();
    await Promise.all([
      deliverer.enqueue({ jobId, accountId: 'acc_1', url: route.url, body: completedBody(jobId) }),
      deliverer.enqueue({ jobId, accountId: 'acc_1', url: other.url, body: completedBody(jobId) }),
    ]);
    await waitFor(settled(jobId));
    await deliverer.enqueue({ jobId, accountId: 'acc_1', url: other.url, body: completedBody(jobId) });
    await laterDeliveryMade();
    expect(route.arrivals.length + other.arrivals.length).toBe(1);
    expect((await deliverer.status(jobId))?.attempts).toBe(1);
  });

  it('reuses the account secret rather than asking Auth each time', async () => {
    const route = receiver.route(() => 200);
    const before = secretCalls.filter((a) => a === 'acc_cache').length;
    const ids = [newJobId(), newJobId(), newJobId()];
    await Promise.all(ids.map((jobId) => deliverer.enqueue({ jobId, accountId: 'acc_cache', url: route.url, body: completedBody(jobId) })));
    await waitFor(async () => (await Promise.all(ids.map((id) => settled(id)()))).every(Boolean));
    expect(route.arrivals).toHaveLength(3);
    expect(secretCalls.filter((a) => a === 'acc_cache').length - before).toBe(1);
  });
});

describe('retries', () => {
  it('after a 500: the second attempt arrives after the delay, same body, fresh valid signature, then no more', async () => {
    const route = receiver.route((n) => (n === 1 ? 500 : 200));
    const jobId = newJobId();
    const t0 = Date.now();
    heldAt = t0; // held: nothing becomes due until the test moves it
    await deliverer.enqueue({ jobId, accountId: 'acc_1', url: route.url, body: completedBody(jobId) });
    // The 500 is recorded with the next attempt one delay later; the clock held, it is not due.
    await waitFor(recorded(jobId, 1));
    expect(await deliverer.status(jobId)).toMatchObject({ state: 'pending', attempts: 1, lastStatus: 500 });
    expect((await deliverer.status(jobId))?.nextAttemptAt?.getTime()).toBe(t0 + SCHEDULE[0]!);
    await laterDeliveryMade();
    expect(route.arrivals).toHaveLength(1);
    heldAt = t0 + SCHEDULE[0]!; // now it is due
    await waitFor(settled(jobId));
    await laterDeliveryMade(); // room for any extra attempt to show up

    expect(route.arrivals).toHaveLength(2);
    const [first, second] = route.arrivals as [(typeof route.arrivals)[0], (typeof route.arrivals)[0]];
    expect(second.body).toBe(first.body);
    expect(second.headers['webhook-attempt']).toBe('2');
    expect(second.headers['webhook-id']).toBe(jobId);
    expect(new Webhook(SECRET).verify(second.body, standardHeaders(second.headers))).toEqual(JSON.parse(second.body));
    expect(await deliverer.status(jobId)).toMatchObject({ state: 'delivered', attempts: 2, lastStatus: 200 });
  });

  it('when the signing secret cannot be had: nothing is sent unsigned, the next attempt is', async () => {
    const route = receiver.route(() => 200);
    const jobId = newJobId();
    await deliverer.enqueue({ jobId, accountId: 'acc_down', url: route.url, body: completedBody(jobId) });
    await waitFor(settled(jobId));
    expect(route.arrivals).toHaveLength(1);
    expect(route.arrivals[0]!.headers['webhook-attempt']).toBe('2');
    expect(await deliverer.status(jobId)).toMatchObject({ state: 'delivered', attempts: 2 });
  });

  it('always 500: exactly 6 attempts, then failed', async () => {
    const route = receiver.route(() => 500);
    const jobId = newJobId();
    await deliverer.enqueue({ jobId, accountId: 'acc_1', url: route.url, body: completedBody(jobId) });
    await waitFor(settled(jobId));
    await laterDeliveryMade();
    expect(route.arrivals).toHaveLength(6);
    expect(route.arrivals.map((a) => a.headers['webhook-attempt'])).toEqual(['1', '2', '3', '4', '5', '6']);
    expect(await deliverer.status(jobId)).toEqual({
      jobId,
      state: 'failed',
      attempts: 6,
      nextAttemptAt: null,
      lastStatus: 500,
      lastError: 'receiver answered 500',
    });
  });

  it('a receiver that never answers: the attempt times out and is retried', async () => {
    const route = receiver.route((n) => (n === 1 ? 'hang' : 200));
    const jobId = newJobId();
    const t0 = Date.now();
    heldAt = t0; // held: nothing becomes due until the test moves it
    await deliverer.enqueue({ jobId, accountId: 'acc_1', url: route.url, body: completedBody(jobId) });
    await waitFor(() => route.arrivals.length === 1);
    expect((await deliverer.status(jobId))?.state).toBe('pending');
    // The attempt ends on its timeout (2 s, as its recorded error says), with the next attempt
    // one delay on; no second one before it (the clock held, it is not due).
    await waitFor(recorded(jobId, 1));
    const afterTimeout = await deliverer.status(jobId);
    expect(afterTimeout).toMatchObject({ state: 'pending', attempts: 1, lastStatus: null, lastError: 'timed out after 2 s' });
    expect(afterTimeout?.nextAttemptAt?.getTime()).toBe(t0 + SCHEDULE[0]!);
    expect(route.arrivals).toHaveLength(1);
    heldAt = t0 + SCHEDULE[0]!;
    await waitFor(settled(jobId));
    expect(route.arrivals).toHaveLength(2);
    expect(await deliverer.status(jobId)).toMatchObject({ state: 'delivered', attempts: 2 });
  });

  it('a 3xx is not followed (the Location, a canary, is never contacted) and counts as a failed attempt', async () => {
    const route = receiver.route(() => ({ status: 302, location: `${canary.url}/hook` }));
    const jobId = newJobId();
    await deliverer.enqueue({ jobId, accountId: 'acc_1', url: route.url, body: completedBody(jobId) });
    await waitFor(settled(jobId));
    expect(route.arrivals).toHaveLength(6);
    expect(await deliverer.status(jobId)).toMatchObject({ state: 'failed', attempts: 6, lastStatus: 302 });
    expect(canary.connections).toBe(0);
  });

  it('a target refused at send time fails at once, without connecting', async () => {
    const jobId = newJobId();
    await deliverer.enqueue({ jobId, accountId: 'acc_1', url: `${canary.url}/hook`, body: completedBody(jobId) });
    await waitFor(settled(jobId));
    expect(await deliverer.status(jobId)).toMatchObject({
      state: 'failed',
      attempts: 1,
      lastStatus: null,
      lastError: 'URL host is a non-public address (127.0.0.1: loopback)',
    });
  });
});

describe('check (submit time)', () => {
  it('accepts an HTTPS URL on an allow-listed address', async () => {
    const before = receiver.server.connections;
    await expect(deliverer.check(`${receiver.server.url}/hook`)).resolves.toBeUndefined();
    expect(receiver.server.connections).toBe(before);
  });

  it.each([
    ['http://127.0.0.2:PORT/hook', 'webhook_url is refused: URL must use HTTPS: http://127.0.0.2:PORT/hook'],
    ['https://127.0.0.1:CANARY/hook', 'webhook_url is refused: URL host is a non-public address (127.0.0.1: loopback)'],
    ['https://localhost:CANARY/hook', 'webhook_url is refused: URL host is not allowed: localhost'],
    ['https://user:pw@127.0.0.2:PORT/hook', 'webhook_url is refused: URL must not contain credentials'],
    ['not a url', 'webhook_url is refused: URL is not a valid absolute URL'],
  ])('refuses %s with 400 and no connection', async (template, message) => {
    const fill = (s: string) => s.replace('CANARY', String(canary.port)).replace('PORT', String(receiver.server.port));
    const before = receiver.server.connections;
    const err = await deliverer.check(fill(template)).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(DomainError);
    expect((err as DomainError).status).toBe(400);
    expect((err as DomainError).message).toBe(fill(message));
    expect(receiver.server.connections).toBe(before);
    expect(canary.connections).toBe(0);
  });
});
