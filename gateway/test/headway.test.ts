// Runs that make no headway (issue 39), as a client sees them: a read paced below real time and
// an aloop graph bounded only by -shortest are refused before anything runs; -shortest without
// -map is checked against the streams the probe finds; a run whose media time advances under the
// speed floor is ended early with its sentence. None of them is charged.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Events, subscribeEvent } from '@media/platform';
import { startTestStack, type TestStack } from '@media/stack/testing';
import { caller, sleep } from './helpers.js';
import { makeMp4 } from './media-fixtures.js';

const run = promisify(execFile);

let dir: string;
let stack: TestStack;
let api: ReturnType<typeof caller>;
let authorization: string;
let dirId: string;
const charges: string[] = [];

/** Media of its own: a still image, a silent video, an audio file. */
async function makeWith(name: string, args: string[]): Promise<Buffer> {
  await run('ffmpeg', ['-v', 'error', ...args, join(dir, name)]);
  return readFile(join(dir, name));
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'headway-'));
  const files: Record<string, Buffer> = {
    'long.mp4': await makeMp4(dir, 'long.mp4', 30),
    'still.png': await makeWith('still.png', ['-f', 'lavfi', '-i', 'color=c=blue:s=640x480', '-frames:v', '1']),
    'silent.mp4': await makeWith('silent.mp4', ['-f', 'lavfi', '-i', 'testsrc=d=2:s=160x120', '-c:v', 'libx264', '-preset', 'ultrafast']),
    'tone.m4a': await makeWith('tone.m4a', ['-f', 'lavfi', '-i', 'sine=d=2', '-c:a', 'aac']),
  };
  // A floor of 3x real time over 10 s: -re (1x) falls under it, as a paced run falls under the default.
  stack = await startTestStack({ FFMPEG_MIN_SPEED: '3', FFMPEG_SPEED_WINDOW_SEC: '10', JOB_TIMEOUT_SEC: '120' });
  await subscribeEvent(stack.bus, Events.usageCharged, async (e) => void charges.push(e.requestId));
  authorization = (await stack.newAccount()).authorization;
  api = caller(stack, authorization);
  for (const [name, bytes] of Object.entries(files)) {
    const { body } = await api('POST', '/file', { file_name: name, ...(dirId ? { dir_id: dirId } : {}) });
    dirId = body.file.dir_id;
    expect((await fetch(body.upload.url, { method: 'PUT', headers: body.upload.headers, body: bytes })).status).toBe(200);
  }
}, 120_000);

afterAll(async () => {
  await stack?.close();
  await rm(dir, { recursive: true, force: true });
});

const usageRows = async () => {
  const res = await stack.gateway.app.inject({ method: 'GET', url: '/account/usage?format=json&limit=10000', headers: { authorization } });
  expect(res.statusCode).toBe(200);
  return (res.json() as { rows: unknown[] }).rows;
};

test('-readrate below 1 and an endless aloop graph bounded only by -shortest: 400 before anything runs', async () => {
  const paced = await api('POST', '/ffmpeg/process/async', {
    task: { inputs: [{ file_path: `${dirId}/long.mp4`, options: ['-readrate', '0.001'] }], outputs: [{ file: 'p.mp4' }] },
  });
  expect(paced).toMatchObject({
    status: 400,
    body: {
      ok: false,
      error:
        "Value '0.001' of '-readrate' reads the input slower than real time, which holds a worker slot while the run makes almost no headway: use -re or -readrate 1 (real time) or more, or leave it out to read at full speed",
    },
  });
  const aloop = await api('POST', '/ffmpeg/process/async', {
    task: {
      inputs: [{ file_path: `${dirId}/long.mp4` }],
      filter_complex: '[0:a]aloop=loop=-1:size=1000[a]',
      outputs: [{ file: 'a.m4a', options: ['-shortest'], maps: ['[a]'] }],
    },
  });
  expect(aloop.status).toBe(400);
  expect(aloop.body.error).toMatch(/^Output 'a\.m4a' would never end: -shortest ends it when its shortest stream ends/);
});

test('-shortest without -map: an image looped with an audio file runs; with a silent video only, 400 once probed', async () => {
  const still = (second: string, file: string) => ({
    task: {
      inputs: [{ file_path: `${dirId}/still.png`, options: ['-loop', '1'] }, { file_path: `${dirId}/${second}` }],
      outputs: [{ file, options: ['-c:v', 'libx264', '-preset', 'ultrafast', '-shortest'] }],
    },
  });
  const ok = await api('POST', '/ffmpeg/process', still('tone.m4a', 'slides.mp4'));
  expect(ok.status).toBe(200);
  const refused = await api('POST', '/ffmpeg/process', still('silent.mp4', 'never.mp4'));
  expect(refused).toMatchObject({
    status: 400,
    body: {
      ok: false,
      error:
        "Output 'never.mp4' would never end: -shortest ends it when its shortest stream ends, but the streams ffmpeg picks for it (it has no -map) play without end (input 0 plays without end (-loop 1)). Bound it: add -t <seconds> to its options, or name a stream that ends with -map (such as -map 1:a)",
    },
  });
}, 60_000);

test('a run under the speed floor ends early with its sentence, sync and async, uncharged', async () => {
  // -re reads the 30 s clip at 1x, a third of the floor: ended after the 10 s window, not at 30 s.
  const task = (file: string) => ({
    task: { inputs: [{ file_path: `${dirId}/long.mp4`, options: ['-re'] }], outputs: [{ file, options: ['-c', 'copy'] }] },
  });
  const before = charges.length;
  const [sync, async] = await Promise.all([
    api('POST', '/ffmpeg/process', task('s.mp4')),
    api('POST', '/ffmpeg/process/async', task('a.mp4')),
  ]);
  const sentence =
    /^Processing stopped early: the output's media time advanced \d+(\.\d+)? s in the last 10 s, under the minimum of 3x real time a run must keep so that it does not hold a worker slot without headway\. Make the task faster \(read inputs at full speed or with -re, do not stretch timestamps with setpts or paced filters\) or split it into shorter tasks; nothing was charged\.$/;
  expect({ status: sync.status, body: sync.body }).toMatchObject({ status: 500 });
  expect(sync.body.error).toMatch(sentence);
  // Polled four times a second, under the key's 300 requests a minute, for at most 60 s.
  let job = (await api('GET', `/job/${async.body.job_id}`)).body;
  for (let i = 0; i < 240 && job.status !== 'failed' && job.status !== 'completed'; i++) {
    await sleep(250);
    job = (await api('GET', `/job/${async.body.job_id}`)).body;
  }
  expect(job).toMatchObject({ status: 'failed', error: expect.stringMatching(sentence) });
  // Without the floor both would have run the 30 s clip to the end (JOB_TIMEOUT_SEC is 120) and
  // been charged: the sentence is the floor's. Nothing charged: no event, no usage row.
  expect(charges.slice(before)).toEqual([]);
  expect((await usageRows()).map((r) => (r as { request_id: string }).request_id)).not.toContain(async.body.job_id);
}, 90_000);
