// Webhooks of async jobs, as a receiver sees them: signed with the account's secret (verified with
// Standard Webhooks' library), signed with both secrets while a rotated one is in its grace
// period, retried after a 500, and refused at submit time when the URL is not public HTTPS (no
// connection made).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { metrics } from '@media/platform';
import { startTestStack, type TestStack } from '@media/stack/testing';
import { waitFor } from '@media/testkit';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { caller, sleep } from './helpers.js';
import { makeMp4 } from './media-fixtures.js';
import { startUrlTargets, type Targets } from './url-targets.js';

interface Received {
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

let dir: string;
let stack: TestStack;
let api: ReturnType<typeof caller>;
let accountId: string;
let dirId: string;
let targets: Targets;
const received: Received[] = [];
let failFirst = true;
let clip: Buffer;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'webhooks-'));
  clip = await makeMp4(dir, 'clip.mp4', 1);
  targets = await startUrlTargets(dir, (req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      received.push({ headers: req.headers, body });
      if (failFirst) {
        failFirst = false;
        return void res.writeHead(500).end('try again');
      }
      res.writeHead(200).end('ok');
    });
  });
  stack = await startTestStack({
    ...targets.env,
    WEBHOOK_RETRY_SCHEDULE_SEC: '0.2,0.2,0.2,0.2,0.2',
    WEBHOOK_POLL_INTERVAL_MS: '50',
  });
  const account = await stack.newAccount();
  accountId = account.accountId;
  api = caller(stack, account.authorization);
  const { body } = await api('POST', '/file', { file_name: 'clip.mp4' });
  dirId = body.file.dir_id;
  await fetch(body.upload.url, { method: 'PUT', headers: body.upload.headers, body: clip });
}, 60_000);
afterAll(async () => {
  await stack?.close();
  await targets?.stop();
  await rm(dir, { recursive: true, force: true });
});

const task = (webhook_url: string) => ({
  task: { inputs: [{ file_path: `${dirId}/clip.mp4` }], outputs: [{ file: 'w.png', options: ['-frames:v', '1'] }] },
  webhook_url,
});

test('a completed job is POSTed, signed, and sent again after the receiver answers 500', async () => {
  const { status, body } = await api('POST', '/ffmpeg/process/async', task(`${targets.https.url}/hook`));
  expect(status).toBe(202);
  for (let i = 0; i < 200 && received.length < 2; i++) await sleep(50);
  expect(received).toHaveLength(2);
  const { secret } = await stack.admin.showWebhookSecret({ accountId });
  const job = (await api('GET', `/job/${body.job_id}`)).body;
  expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/); // 32 random bytes
  for (const r of received) {
    const ts = String(r.headers['webhook-timestamp']);
    expect(new Webhook(secret).verify(r.body, standardHeaders(r))).toEqual(JSON.parse(r.body));
    expect(r.headers['webhook-id']).toBe(body.job_id);
    expect(Math.abs(Date.now() / 1000 - Number(ts))).toBeLessThan(60);
    expect(JSON.parse(r.body)).toEqual({
      event: 'job.completed',
      job_id: body.job_id,
      status: 'completed',
      request_id: body.job_id,
      result: job.result,
      usage: job.usage,
      amount_usd: job.amount_usd,
      completed_at: expect.any(String),
    });
  }
  expect(received[0]!.body).toBe(received[1]!.body);
  // Jobs' own record: nothing left to deliver (the delivery is stored as delivered).
  await waitFor('no webhook delivery pending', async () => (await metrics.webhookBacklog.get()).values[0]?.value === 0);
  expect(received).toHaveLength(2); // delivered: no more attempts
});

/** The three Standard Webhooks headers of a delivery. */
const standardHeaders = (r: Received) => ({
  'webhook-id': String(r.headers['webhook-id']),
  'webhook-timestamp': String(r.headers['webhook-timestamp']),
  'webhook-signature': String(r.headers['webhook-signature']),
});

/** A new account's first delivery, once its secret has been rotated with `graceSec`. */
async function afterRotation(graceSec?: number) {
  const account = await stack.newAccount();
  const own = caller(stack, account.authorization);
  const reg = (await own('POST', '/file', { file_name: 'clip.mp4' })).body;
  await fetch(reg.upload.url, { method: 'PUT', headers: reg.upload.headers, body: clip });
  const before = (await stack.admin.showWebhookSecret({ accountId: account.accountId })).secret;
  const rotated = await stack.admin.rotateWebhookSecret({ accountId: account.accountId, graceSec });
  const task = { inputs: [{ file_path: reg.file.file_path }], outputs: [{ file: 'r.png', options: ['-frames:v', '1'] }] };
  const { body } = await own('POST', '/ffmpeg/process/async', { task, webhook_url: `${targets.https.url}/hook` });
  let delivery: Received | undefined;
  for (let i = 0; i < 200 && !delivery; i++) {
    await sleep(50);
    delivery = received.find((r) => r.headers['webhook-id'] === body.job_id);
  }
  return { before, rotated, shown: await stack.admin.showWebhookSecret({ accountId: account.accountId }), delivery: delivery! };
}

test('a rotated secret signs beside the new one for its grace period: receivers holding either verify', async () => {
  const started = Date.now();
  const { before, rotated, shown, delivery } = await afterRotation();
  expect(rotated.secret).not.toBe(before);
  expect(shown.secret).toBe(rotated.secret);
  // The default grace period: 24 hours.
  const until = Number(rotated.previousValidUntil!.seconds) * 1000;
  expect(until).toBeGreaterThanOrEqual(started + 86_400_000 - 1000);
  expect(until).toBeLessThanOrEqual(Date.now() + 86_400_000);
  expect(shown.previousValidUntil).toEqual(rotated.previousValidUntil);
  expect(String(delivery.headers['webhook-signature']).split(' ')).toHaveLength(2);
  const payload = JSON.parse(delivery.body);
  expect(new Webhook(rotated.secret).verify(delivery.body, standardHeaders(delivery))).toEqual(payload);
  expect(new Webhook(before).verify(delivery.body, standardHeaders(delivery))).toEqual(payload);
});

test('a rotation with no grace period (a leaked secret) ends the old secret at once', async () => {
  const { before, rotated, shown, delivery } = await afterRotation(0);
  expect(rotated.previousValidUntil).toBeUndefined();
  expect(shown.previousValidUntil).toBeUndefined();
  expect(String(delivery.headers['webhook-signature']).split(' ')).toHaveLength(1);
  expect(new Webhook(rotated.secret).verify(delivery.body, standardHeaders(delivery))).toEqual(JSON.parse(delivery.body));
  expect(() => new Webhook(before).verify(delivery.body, standardHeaders(delivery))).toThrow(WebhookVerificationError);
});

test('a grace period beyond 7 days is refused with a sentence, the secret unchanged', async () => {
  const account = await stack.newAccount();
  const before = (await stack.admin.showWebhookSecret({ accountId: account.accountId })).secret;
  await expect(stack.admin.rotateWebhookSecret({ accountId: account.accountId, graceSec: 604_801 })).rejects.toThrow(
    'The grace period must be a whole number of seconds from 0 to 604800 (7 days).',
  );
  expect((await stack.admin.showWebhookSecret({ accountId: account.accountId })).secret).toBe(before);
});

test.each([
  ['http://', () => `http://127.0.0.2:${targets.https.port}/hook`],
  ['127.0.0.1 outside the allow-list', () => `https://127.0.0.1:${targets.canary.port}/hook`],
  ['localhost', () => `https://localhost:${targets.canary.port}/hook`],
  ['[::1]', () => `https://[::1]:${targets.canary.port}/hook`],
])('webhook_url %s -> 400, nothing queued, no connection', async (_name, url) => {
  const before = (await api('GET', '/jobs')).body.pagination.total;
  const res = await api('POST', '/ffmpeg/process/async', task(url()));
  expect(res.status).toBe(400);
  expect(res.body.ok).toBe(false);
  expect((await api('GET', '/jobs')).body.pagination.total).toBe(before);
  expect(targets.canary.connections).toBe(0);
});
