// A sync request's inputs are fetched before it takes an ffmpeg slot: with one slot, a request
// whose URL input trickles in for seconds does not make another account's request answer 503.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestStack, type TestStack } from '@media/stack';
import { caller, sleep } from './helpers.js';
import { makeMp4 } from './media-fixtures.js';
import { startUrlTargets, type Targets } from './url-targets.js';

let stack: TestStack;
let dir: string;
let targets: Targets;
let mp4: Buffer;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'slot-staging-'));
  mp4 = await makeMp4(dir, 'src.mp4', 1);
  targets = await startUrlTargets(dir, (req, res) => {
    if (req.url !== '/slow.mp4') return void res.writeHead(404).end();
    // The whole file over about 6 s, in twenty parts: time enough for the other request to run
    // even on a loaded CI machine (over 3 s, it once still held the one slot when this finished
    // staging, and this answered 503).
    res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': mp4.length });
    const part = Math.ceil(mp4.length / 20);
    let sent = 0;
    const timer = setInterval(() => {
      res.write(mp4.subarray(sent, sent + part));
      sent += part;
      if (sent >= mp4.length) {
        clearInterval(timer);
        res.end();
      }
    }, 300);
    res.on('close', () => clearInterval(timer));
  });
  stack = await startTestStack({ ...targets.env, WORKER_CONCURRENCY: '1', URL_MIN_BYTES_PER_SEC: '0' });
}, 60_000);
afterAll(async () => {
  await stack?.close();
  await targets?.stop();
  await rm(dir, { recursive: true, force: true });
});

test('the slow URL input holds no slot: another request runs meanwhile', async () => {
  const slowApi = caller(stack, (await stack.newAccount()).authorization);
  const api = caller(stack, (await stack.newAccount()).authorization);
  const reg = await api('POST', '/file', { file_name: 'clip.mp4' });
  await fetch(reg.body.upload.url, { method: 'PUT', headers: reg.body.upload.headers, body: mp4 });
  const thumb = (file_path: string) => ({ task: { inputs: [{ file_path }], outputs: [{ file: 't.png', options: ['-frames:v', '1'] }] } });

  let slowDone = 0;
  const slow = slowApi('POST', '/ffmpeg/process', thumb(`${targets.https.url}/slow.mp4`)).then((r) => {
    slowDone = Date.now();
    return r;
  });
  await sleep(600); // the slow one is admitted and fetching
  const quick = await api('POST', '/ffmpeg/process', thumb(reg.body.file.file_path));
  const quickDone = Date.now();
  expect(quick.status).toBe(200);
  const slowRes = await slow;
  expect(slowRes.status).toBe(200);
  expect(quickDone).toBeLessThan(slowDone);
}, 30_000);
