// Probing a URL: a loopback HTTPS server in URL_ALLOWLIST_CIDRS is probed (and charged by the
// fetched size); loopback addresses outside it, and redirects to them, are refused before any
// connection: the canary sees nothing.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Events, subscribeEvent } from '@media/platform';
import { startTestStack, type TestStack } from '@media/stack/testing';
import { caller, until } from './helpers.js';
import { makeMp4 } from './media-fixtures.js';
import { mediaRoutes, startUrlTargets, type Targets } from './url-targets.js';

let stack: TestStack;
let api: ReturnType<typeof caller>;
let dir: string;
let mp4: Buffer;
let targets: Targets;
const charges: { requestId: string; inputSizeGb: number; amountUsd: number }[] = [];
/** /stalled.mp4 sends its headers and a few bytes, then nothing; these tell when it was asked and let go. */
let stallAsked: () => void = () => undefined;
let stallClosed: () => void = () => undefined;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'probe-url-'));
  mp4 = await makeMp4(dir, 'src.mp4', 1);
  targets = await startUrlTargets(dir, (req, res, port) => {
    if (mediaRoutes(mp4, req, res, port)) return;
    if (req.url === '/stalled.mp4') {
      res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': mp4.length }).write(mp4.subarray(0, 1024));
      stallAsked();
      res.once('close', () => stallClosed());
      return;
    }
    if (req.url === '/list.m3u8')
      return void res.writeHead(200).end('#EXTM3U\n#EXT-X-TARGETDURATION:10\n#EXTINF:10.0,\n/etc/passwd\n#EXT-X-ENDLIST\n');
    res.writeHead(404).end();
  });
  stack = await startTestStack(targets.env);
  api = caller(stack, (await stack.newAccount()).authorization);
  await subscribeEvent(
    stack.bus,
    Events.usageCharged,
    async (e) => void charges.push({ requestId: e.requestId, inputSizeGb: e.usage!.inputSizeGb, amountUsd: e.amountUsd }),
  );
}, 60_000);
afterAll(async () => {
  await stack?.close();
  await targets?.stop();
  await rm(dir, { recursive: true, force: true });
});

const analyze = (body: unknown) => api('POST', '/ffprobe/analyze', body);

test('hanging up on a probe whose URL input is still downloading stops it: connection let go, slot freed, nothing charged', async () => {
  const { authorization } = await stack.newAccount();
  const mine = caller(stack, authorization);
  const stalled = { asked: new Promise<void>((r) => (stallAsked = r)), closed: new Promise<void>((r) => (stallClosed = r)) };
  const hangUp = new AbortController();
  const request = fetch(`${stack.gatewayUrl}/ffprobe/analyze`, {
    method: 'POST',
    headers: { authorization, 'content-type': 'application/json' },
    body: JSON.stringify({ file_path: `${targets.https.url}/stalled.mp4` }),
    signal: hangUp.signal,
  }).catch((err: unknown) => err);
  await stalled.asked;
  expect((await mine('GET', '/account')).body.jobs.active).toBe(1);
  const before = charges.length;
  hangUp.abort();
  expect(await request).toMatchObject({ name: 'AbortError' });
  // The fetcher closes its connection to the URL (else it would wait for the service's time limit).
  await stalled.closed;
  for (const started = Date.now(); (await mine('GET', '/account')).body.jobs.active !== 0; ) {
    if (Date.now() - started > 5000) throw new Error('the probe admission was not released');
    await new Promise((r) => setTimeout(r, 50));
  }
  expect(charges.length).toBe(before);
});

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
  expect(res).toMatchObject({
    status: 403,
    body: { ok: false, error: "File 'huge.mp4' size (6000.00 MB) exceeds max file size limit of 5 GB." },
  });
});
