// URL inputs: a loopback HTTPS server in URL_ALLOWLIST_CIDRS works; loopback addresses outside
// it (and redirects to them) are refused before any connection: the canary sees nothing.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startCanaryServer, startHttpsServer } from '@media/testkit';
import { startTestStack, type TestStack } from '@media/stack';
import { caller } from './helpers.js';
import { makeMp4 } from './media-fixtures.js';

let stack: TestStack;
let api: ReturnType<typeof caller>;
let dir: string;
let https: Awaited<ReturnType<typeof startHttpsServer>>;
let canary: Awaited<ReturnType<typeof startCanaryServer>>;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'process-url-'));
  const mp4 = await makeMp4(dir, 'src.mp4', 1);
  canary = await startCanaryServer('127.0.0.1');
  https = await startHttpsServer({
    host: '127.0.0.2',
    handler: (req, res) => {
      if (req.url === '/clip.mp4') return void res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': mp4.length }).end(mp4);
      if (req.url === '/huge.mp4') return void res.writeHead(200, { 'content-length': '6000000000' }).end();
      if (req.url === '/to-canary') return void res.writeHead(302, { location: `https://127.0.0.1:${canary.port}/x.mp4` }).end();
      if (req.url === '/to-localhost') return void res.writeHead(302, { location: `https://localhost:${canary.port}/x.mp4` }).end();
      res.writeHead(404).end();
    },
  });
  const caFile = join(dir, 'ca.pem');
  await writeFile(caFile, https.ca);
  stack = await startTestStack({ URL_ALLOWLIST_CIDRS: '127.0.0.2/32', URL_CA_FILE: caFile });
  api = caller(stack, (await stack.newAccount()).authorization);
}, 60_000);
afterAll(async () => {
  await stack?.close();
  await https?.stop();
  await canary?.stop();
  await rm(dir, { recursive: true, force: true });
});

const thumbnailOf = (url: string) =>
  api('POST', '/ffmpeg/process', { task: { inputs: [{ file_path: url }], outputs: [{ file: 't.png', options: ['-frames:v', '1'] }] } });

test('a URL input on the allow-listed loopback HTTPS server works; outputs go to a new directory', async () => {
  const res = await thumbnailOf(`${https.url}/clip.mp4`);
  expect(res.status).toBe(200);
  expect(res.body.result[0].file_name).toBe('t.png');
  const png = Buffer.from(await (await fetch(res.body.result[0].download_url)).arrayBuffer());
  expect(png.subarray(1, 4).toString()).toBe('PNG');
  expect(res.body.usage.input_size_gb).toBeGreaterThan(0);
});

test.each([
  ['127.0.0.1', () => `https://127.0.0.1:${canary.port}/x.mp4`],
  ['localhost', () => `https://localhost:${canary.port}/x.mp4`],
  ['[::1]', () => `https://[::1]:${canary.port}/x.mp4`],
  ['a redirect to 127.0.0.1', () => `${https.url}/to-canary`],
  ['a redirect to localhost', () => `${https.url}/to-localhost`],
])('%s is refused with 400 and no connection', async (_name, url) => {
  const res = await thumbnailOf(url());
  expect(res.status).toBe(400);
  expect(res.body.ok).toBe(false);
  expect(canary.connections).toBe(0);
});

test('a URL input over 5 GB -> 403 with the spec text', async () => {
  const res = await thumbnailOf(`${https.url}/huge.mp4`);
  expect(res).toMatchObject({ status: 403, body: { ok: false, error: "File 'huge.mp4' size (6000.00 MB) exceeds max file size limit of 5 GB." } });
});
