// Webhooks of async jobs, as a receiver sees them: signed with the account's secret, retried
// after a 500, and refused at submit time when the URL is not public HTTPS (no connection made).
import { createHmac } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestStack, type TestStack } from '@media/stack';
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

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'webhooks-'));
  const clip = await makeMp4(dir, 'clip.mp4', 1);
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
  for (const r of received) {
    const ts = String(r.headers['webhook-timestamp']);
    const expected = createHmac('sha256', secret).update(`${ts}.${r.body}`).digest('hex');
    expect(r.headers['webhook-signature']).toBe(`v1=${expected}`);
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
  await sleep(600);
  expect(received).toHaveLength(2); // delivered: no more attempts
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
