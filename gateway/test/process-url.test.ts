// URL inputs: a loopback HTTPS server in URL_ALLOWLIST_CIDRS works; loopback addresses outside
// it (and redirects to them) are refused before any connection: the canary sees nothing.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestStack, type TestStack } from '@media/stack/testing';
import { caller } from './helpers.js';
import { makeMp4 } from './media-fixtures.js';
import { mediaRoutes, startUrlTargets, type Targets } from './url-targets.js';

let stack: TestStack;
let api: ReturnType<typeof caller>;
let dir: string;
let targets: Targets;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'process-url-'));
  const mp4 = await makeMp4(dir, 'src.mp4', 1);
  targets = await startUrlTargets(dir, (req, res, port) => mediaRoutes(mp4, req, res, port) || void res.writeHead(404).end());
  stack = await startTestStack(targets.env);
  api = caller(stack, (await stack.newAccount()).authorization);
}, 60_000);
afterAll(async () => {
  await stack?.close();
  await targets?.stop();
  await rm(dir, { recursive: true, force: true });
});

const thumbnailOf = (url: string) =>
  api('POST', '/ffmpeg/process', { task: { inputs: [{ file_path: url }], outputs: [{ file: 't.png', options: ['-frames:v', '1'] }] } });

test('a URL input on the allow-listed loopback HTTPS server works; outputs go to a new directory', async () => {
  const res = await thumbnailOf(`${targets.https.url}/clip.mp4`);
  expect(res.status).toBe(200);
  expect(res.body.result[0].file_name).toBe('t.png');
  const png = Buffer.from(await (await fetch(res.body.result[0].download_url)).arrayBuffer());
  expect(png.subarray(1, 4).toString()).toBe('PNG');
  expect(res.body.usage.input_size_gb).toBeGreaterThan(0);
});

test.each([
  ['127.0.0.1', () => `https://127.0.0.1:${targets.canary.port}/x.mp4`],
  ['localhost', () => `https://localhost:${targets.canary.port}/x.mp4`],
  ['[::1]', () => `https://[::1]:${targets.canary.port}/x.mp4`],
  ['a redirect to 127.0.0.1', () => `${targets.https.url}/to-canary`],
  ['a redirect to localhost', () => `${targets.https.url}/to-localhost`],
])('%s is refused with 400 and no connection', async (_name, url) => {
  const res = await thumbnailOf(url());
  expect(res.status).toBe(400);
  expect(res.body.ok).toBe(false);
  expect(targets.canary.connections).toBe(0);
});

test('a URL input over 5 GB -> 403 with the spec text', async () => {
  const res = await thumbnailOf(`${targets.https.url}/huge.mp4`);
  expect(res).toMatchObject({
    status: 403,
    body: { ok: false, error: "File 'huge.mp4' size (6000.00 MB) exceeds max file size limit of 5 GB." },
  });
});
