// Progress of a trimmed job through the API (issue 43): a job with input options -t 2 on a 6 s
// file used to measure its progress against the file's 6 s, so it finished while GET /job showed
// a third of the way. What GET /job shows must imply the planned 2 s: at out_time x of a planned
// d seconds, percent = x / d and eta_sec = (d - x) / speed, so d = eta_sec * speed / (1 - percent).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestStack, type TestStack } from '@media/stack/testing';
import { caller, sleep } from './helpers.js';
import { makeMp4 } from './media-fixtures.js';

let dir: string;
let stack: TestStack;
let api: ReturnType<typeof caller>;
let dirId: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'trimmed-progress-'));
  const bytes = await makeMp4(dir, 'six.mp4', 6, '160x120');
  stack = await startTestStack({});
  api = caller(stack, (await stack.newAccount()).authorization);
  const { body } = await api('POST', '/file', { file_name: 'six.mp4' });
  dirId = body.file.dir_id;
  await fetch(body.upload.url, { method: 'PUT', headers: body.upload.headers, body: bytes });
}, 60_000);

afterAll(async () => {
  await stack?.close();
  await rm(dir, { recursive: true, force: true });
});

interface Progress {
  percent: number;
  fps: number;
  speed: number;
  eta_sec: number | null;
}

test('a job reading 2 s of a 6 s file reports progress against 2 s', async () => {
  // -re reads the 2 s at their own pace, so the run lasts long enough for GET /job to show progress.
  const task = {
    inputs: [{ file_path: `${dirId}/six.mp4`, options: ['-re', '-t', '2'] }],
    outputs: [{ file: 'clip.mp4', options: ['-c:v', 'libx264', '-preset', 'ultrafast'] }],
  };
  const accepted = await api('POST', '/ffmpeg/process/async', { task });
  expect(accepted).toEqual(expect.objectContaining({ status: 202 }));
  const seen: Progress[] = [];
  const deadline = Date.now() + 60_000;
  let last: { status: string; progress?: Progress } = { status: 'pending' };
  while (!['completed', 'failed'].includes(last.status) && Date.now() < deadline) {
    last = (await api('GET', `/job/${accepted.body.job_id}`)).body;
    if (last.status === 'processing' && last.progress) seen.push(last.progress);
    await sleep(50);
  }
  expect(last.status).toBe('completed');

  const during = seen.filter((p) => p.percent > 0 && p.percent < 95 && p.speed > 0 && p.eta_sec !== null);
  expect(during.length).toBeGreaterThan(0);
  for (const p of during) {
    const left = 1 - p.percent / 100;
    const plannedSec = (p.eta_sec! * p.speed) / left;
    // eta_sec is rounded to 0.1 s, an error that grows as the run nears its end; the old rule
    // (the whole 6 s file) stays far outside it.
    expect(Math.abs(plannedSec - 2)).toBeLessThanOrEqual(0.3 + (0.05 * p.speed) / left);
  }
}, 90_000);
