// Staging outside the slots (issue 39): an async job's inputs are fetched and checked while the
// job is `pending` and holds no ffmpeg slot, under a deadline of its own (JOB_STAGING_TIMEOUT_SEC,
// here 2 s) rather than the job's hour, and a staging that failed is not fetched again.
import type { ServerResponse } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Errors } from '@media/platform';
import { startTestStack, type TestStack } from '@media/stack/testing';
import { caller, sleep } from './helpers.js';
import { makeMp4 } from './media-fixtures.js';
import { startUrlTargets, type Targets } from './url-targets.js';

let stack: TestStack;
let dir: string;
let targets: Targets;
let clip: Buffer;
const requests: string[] = [];
const stalled: ServerResponse[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'staging-slots-'));
  clip = await makeMp4(dir, 'clip.mp4', 3, '160x120');
  targets = await startUrlTargets(dir, (req, res) => {
    requests.push(req.url ?? '');
    if (req.url?.startsWith('/stall')) {
      // Half the file, then nothing: a fetch that would otherwise wait out the job's hour.
      res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': clip.length });
      res.write(clip.subarray(0, Math.floor(clip.length / 2)));
      stalled.push(res);
      return;
    }
    res.writeHead(404).end();
  });
  stack = await startTestStack({ ...targets.env, WORKER_CONCURRENCY: '2', URL_MIN_BYTES_PER_SEC: '0', JOB_STAGING_TIMEOUT_SEC: '2' });
}, 60_000);
afterAll(async () => {
  for (const res of stalled) res.destroy();
  await stack?.close();
  await targets?.stop();
  await rm(dir, { recursive: true, force: true });
});

const urlTask = (path: string, out: string) => ({
  task: { inputs: [{ file_path: `${targets.https.url}${path}` }], outputs: [{ file: out, options: ['-c', 'copy'] }] },
});

async function finalState(api: ReturnType<typeof caller>, id: string, seen?: Set<string>) {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const { body } = await api('GET', `/job/${id}`);
    seen?.add(body.status);
    if (['completed', 'failed', 'cancelled'].includes(body.status)) return body;
    if (Date.now() > deadline) throw new Error(`job ${id} still ${body.status}`);
    await sleep(50);
  }
}

const STALLED = Errors.stagingTimedOut(2).message;

test('a stalled fetch ends at the staging deadline with its sentence; the job was pending meanwhile', async () => {
  const api = caller(stack, (await stack.newAccount()).authorization);
  const id = (await api('POST', '/ffmpeg/process/async', urlTask('/stall-async.mp4', 'a.mkv'))).body.job_id as string;
  const seen = new Set<string>();
  const job = await finalState(api, id, seen);
  expect([job.status, job.error, job.usage]).toEqual(['failed', STALLED, undefined]);
  expect(requests).toContain('/stall-async.mp4');
  expect(seen.has('processing')).toBe(false); // fetching held no slot: never `processing`

  const sync = await api('POST', '/ffmpeg/process', urlTask('/stall-sync.mp4', 's.mkv'));
  expect([sync.status, sync.body.error]).toEqual([400, STALLED]);
}, 60_000);

test('a staging that failed is not fetched again, even when it was staged ahead of busy slots', async () => {
  const api = caller(stack, (await stack.newAccount()).authorization);
  const reg = await api('POST', '/file', { file_name: 'clip.mp4' });
  await fetch(reg.body.upload.url, { method: 'PUT', headers: reg.body.upload.headers, body: clip });
  // Both slots busy (about 3 s each, paced) while the failing job is staged ahead.
  const paced = (out: string) => ({
    task: { inputs: [{ file_path: reg.body.file.file_path, options: ['-re'] }], outputs: [{ file: out, options: ['-c', 'copy'] }] },
  });
  const busy: string[] = [];
  for (const out of ['b1.mkv', 'b2.mkv']) busy.push((await api('POST', '/ffmpeg/process/async', paced(out))).body.job_id);
  const id = (await api('POST', '/ffmpeg/process/async', urlTask('/missing.mp4', 'm.mkv'))).body.job_id as string;
  const job = await finalState(api, id);
  expect(job.status).toBe('failed');
  expect(job.error).toMatch(/^URL input could not be fetched/);
  for (const b of busy) expect((await finalState(api, b)).status).toBe('completed'); // slots freed since
  expect(requests.filter((r) => r === '/missing.mp4')).toHaveLength(1);
}, 60_000);
