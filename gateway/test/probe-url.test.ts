// Probing a URL: a loopback HTTPS server in URL_ALLOWLIST_CIDRS is probed (and charged by the
// fetched size); loopback addresses outside it, and redirects to them, are refused before any
// connection: the canary sees nothing.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Events, subscribeEvent } from '@media/platform';
import { startTestStack, type TestStack } from '@media/stack';
import { caller, until } from './helpers.js';
import { makeMp4 } from './media-fixtures.js';
import { mediaRoutes, startUrlTargets, type Targets } from './url-targets.js';

let stack: TestStack;
let api: ReturnType<typeof caller>;
let dir: string;
let mp4: Buffer;
let targets: Targets;
const charges: { requestId: string; inputSizeGb: number; amountUsd: number }[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'probe-url-'));
  mp4 = await makeMp4(dir, 'src.mp4', 1);
  targets = await startUrlTargets(dir, (req, res, port) => {
    if (mediaRoutes(mp4, req, res, port)) return;
    if (req.url === '/list.m3u8') return void res.writeHead(200).end('#EXTM3U\n#EXT-X-TARGETDURATION:10\n#EXTINF:10.0,\n/etc/passwd\n#EXT-X-ENDLIST\n');
    res.writeHead(404).end();
  });
  stack = await startTestStack(targets.env);
  api = caller(stack, (await stack.newAccount()).authorization);
  await subscribeEvent(stack.bus, Events.usageCharged, async (e) => void charges.push({ requestId: e.requestId, inputSizeGb: e.usage!.inputSizeGb, amountUsd: e.amountUsd }));
}, 60_000);
afterAll(async () => {
  await stack?.close();
  await targets?.stop();
  await rm(dir, { recursive: true, force: true });
});

const analyze = (body: unknown) => api('POST', '/ffprobe/analyze', body);

test('a URL on the allow-listed loopback HTTPS server is probed and charged by its size', async () => {
  const url = `${targets.https.url}/clip.mp4`;
  const res = await analyze({ file_path: url, probe: { format: ['filename', 'format_name', 'size'], streams: ['codec_name'] } });
  expect(res.status).toBe(200);
  expect(res.body.result).toEqual({
    format: { filename: url, format_name: 'mov,mp4,m4a,3gp,3g2,mj2', size: String(mp4.length) },
    streams: [{ codec_name: 'h264' }, { codec_name: 'aac' }],
  });
  expect(res.body.usage.input_size_gb).toBe(mp4.length / 1e9);
  await until(() => charges.some((c) => c.requestId === res.body.request_id));
  expect(charges).toContainEqual({ requestId: res.body.request_id, inputSizeGb: mp4.length / 1e9, amountUsd: res.body.amount_usd });
});

test('a playlist served by URL is refused and reveals nothing', async () => {
  const res = await analyze({ file_path: `${targets.https.url}/list.m3u8` });
  expect(res.status).toBe(400);
  expect(res.body.error).toMatch(/^Input file 'list\.m3u8' is not a supported media file: /);
  expect(JSON.stringify(res.body)).not.toMatch(/root:|passwd/);
});

test.each([
  ['127.0.0.1', () => `https://127.0.0.1:${targets.canary.port}/x.mp4`],
  ['localhost', () => `https://localhost:${targets.canary.port}/x.mp4`],
  ['[::1]', () => `https://[::1]:${targets.canary.port}/x.mp4`],
  ['a redirect to 127.0.0.1', () => `${targets.https.url}/to-canary`],
])('%s is refused with 400 and no connection', async (_name, url) => {
  const before = charges.length;
  const res = await analyze({ file_path: url() });
  expect(res.status).toBe(400);
  expect(res.body.ok).toBe(false);
  expect(targets.canary.connections).toBe(0);
  expect(charges.length).toBe(before);
});

test('a URL over 5 GB -> 403 with the spec text', async () => {
  const res = await analyze({ file_path: `${targets.https.url}/huge.mp4` });
  expect(res).toMatchObject({ status: 403, body: { ok: false, error: "File 'huge.mp4' size (6000.00 MB) exceeds max file size limit of 5 GB." } });
});
