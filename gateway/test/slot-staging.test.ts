// A sync request's inputs are fetched before it takes an ffmpeg slot: with one slot, a request
// whose URL input is still arriving does not make another account's request answer 503.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestStack, type TestStack } from '@media/stack/testing';
import { caller } from './helpers.js';
import { makeMp4 } from './media-fixtures.js';
import { startUrlTargets, type Targets } from './url-targets.js';

let stack: TestStack;
let dir: string;
let targets: Targets;
let mp4: Buffer;
// The slow input's server sends half the file, then waits for the test to let the rest go: the
// slow request is still staging for as long as the other one takes, however loaded the machine
// (on a clock, a CI machine once let it finish staging first, and one of the two answered 503).
let fetching: () => void;
const started = new Promise<void>((resolve) => {
  fetching = resolve;
});
let finish: () => void;
const released = new Promise<void>((resolve) => {
  finish = resolve;
});

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'slot-staging-'));
  mp4 = await makeMp4(dir, 'src.mp4', 1);
  targets = await startUrlTargets(dir, (req, res) => {
    if (req.url !== '/slow.mp4') return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': mp4.length });
    const half = Math.floor(mp4.length / 2);
    res.write(mp4.subarray(0, half), () => fetching());
    void released.then(() => res.end(mp4.subarray(half)));
  });
  stack = await startTestStack({ ...targets.env, WORKER_CONCURRENCY: '1', URL_MIN_BYTES_PER_SEC: '0' });
}, 60_000);
afterAll(async () => {
  finish();
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

  const slow = slowApi('POST', '/ffmpeg/process', thumb(`${targets.https.url}/slow.mp4`));
  await started; // the slow one is admitted and its input half fetched
  const quick = await api('POST', '/ffmpeg/process', thumb(reg.body.file.file_path));
  expect([quick.status, quick.body.error]).toEqual([200, undefined]);
  finish();
  const slowRes = await slow;
  expect([slowRes.status, slowRes.body.error]).toEqual([200, undefined]);
}, 30_000);
