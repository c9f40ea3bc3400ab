// Long encodes split at keyframes (PARALLEL_ENCODE=auto; issue 42), through the API: a job the
// planner can split completes with split_parts, its output the frames, duration and streams of
// the input, charged once; one it cannot (fade) runs whole; nothing is left in the work directory.
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Events, subscribeEvent } from '@media/platform';
import { startTestStack, type TestStack } from '@media/stack/testing';
import { waitFor } from '@media/testkit';
import { caller } from './helpers.js';

const run = promisify(execFile);
const SECONDS = 12;
const FPS = 25;

let dir: string;
let workDir: string;
let stack: TestStack;
let api: ReturnType<typeof caller>;
let input: string;
const charges: string[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'split-jobs-'));
  workDir = join(dir, 'work');
  // 12 s with a keyframe every 2 s (x264 -g 50), and audio: parts of about 3 s.
  const clip = join(dir, 'in.mp4');
  await run('ffmpeg', [
    ...['-v', 'error', '-f', 'lavfi', '-i', `testsrc=duration=${SECONDS}:size=320x240:rate=${FPS}`],
    ...['-f', 'lavfi', '-i', `sine=frequency=440:duration=${SECONDS}`],
    ...['-c:v', 'libx264', '-preset', 'ultrafast', '-g', '50', '-pix_fmt', 'yuv420p', '-c:a', 'aac', '-shortest', clip],
  ]);
  stack = await startTestStack({ PARALLEL_MIN_INPUT_SEC: '5', PARALLEL_PART_SEC: '3', WORK_DIR: workDir });
  await subscribeEvent(stack.bus, Events.usageCharged, async (e) => void charges.push(e.requestId));
  api = caller(stack, (await stack.newAccount()).authorization);
  const reg = await api('POST', '/file', { file_name: 'in.mp4' });
  await fetch(reg.body.upload.url, { method: 'PUT', headers: reg.body.upload.headers, body: await readFile(clip) });
  input = reg.body.file.file_path;
}, 120_000);
afterAll(async () => {
  await stack?.close();
  await rm(dir, { recursive: true, force: true });
});

async function finished(jobId: string) {
  let body: any;
  await waitFor(
    `job ${jobId} ended`,
    async () => {
      body = (await api('GET', `/job/${jobId}`)).body;
      return ['completed', 'failed'].includes(body.status);
    },
    90_000,
  );
  return body;
}

/** The output's streams, frame count and duration, as ffprobe reads the downloaded file. */
async function probe(url: string) {
  const path = join(dir, `out-${Date.now()}.mp4`);
  await writeFile(path, Buffer.from(await (await fetch(url)).arrayBuffer()));
  const { stdout } = await run('ffprobe', [
    ...['-v', 'error', '-count_frames', '-show_entries', 'stream=codec_type,codec_name,nb_read_frames,start_time:format=duration'],
    ...['-of', 'json', path],
  ]);
  const info = JSON.parse(stdout) as {
    streams: { codec_type: string; codec_name: string; nb_read_frames?: string; start_time: string }[];
    format: { duration: string };
  };
  return info;
}

const encode = (out: string, vf?: string[]) => ({
  task: {
    inputs: [{ file_path: input }],
    outputs: [{ file: out, options: [...(vf ?? []), '-c:v', 'libx264', '-preset', 'ultrafast', '-crf', '28', '-c:a', 'aac'] }],
  },
});

test('a long encode the planner can split runs in parts: split_parts, the same frames and streams, charged once', async () => {
  const res = await api('POST', '/ffmpeg/process/async', encode('split.mp4', ['-vf', 'scale=160:120,eq=brightness=0.05']));
  expect(res.status).toBe(202);
  const job = await finished(res.body.job_id);
  expect(job).toMatchObject({ status: 'completed', result: [{ file_name: 'split.mp4' }] });
  expect(job.split_parts).toBeGreaterThanOrEqual(3);
  const info = await probe(job.result[0].download_url);
  const video = info.streams.find((s) => s.codec_type === 'video')!;
  const audio = info.streams.find((s) => s.codec_type === 'audio')!;
  expect([video.codec_name, audio?.codec_name]).toEqual(['h264', 'aac']);
  expect(Number(video.nb_read_frames)).toBe(SECONDS * FPS);
  expect(Math.abs(Number(info.format.duration) - SECONDS)).toBeLessThan(0.1);
  expect(Number(video.start_time)).toBeCloseTo(Number(audio.start_time), 1);
  // Charged once, under the job's id.
  await waitFor('the job charged', () => charges.includes(res.body.job_id), 10_000);
  const marker = await api('POST', '/ffmpeg/process', {
    task: { inputs: [{ file_path: input }], outputs: [{ file: 'm.png', options: ['-frames:v', '1'] }] },
  });
  await waitFor('the marker charged', () => charges.includes(marker.body.request_id), 10_000);
  expect(charges.filter((id) => id === res.body.job_id)).toHaveLength(1);
  // Nothing of its parts is left behind.
  await waitFor('the work directory emptied', async () => (await readdir(workDir).catch(() => [])).length === 0, 10_000);
}, 120_000);

test('a filter with memory across frames (fade) keeps the run whole: no split_parts, the same frames', async () => {
  const res = await api('POST', '/ffmpeg/process/async', encode('whole.mp4', ['-vf', 'fade=in:0:25']));
  const job = await finished(res.body.job_id);
  expect(job.status).toBe('completed');
  expect(job).not.toHaveProperty('split_parts');
  const info = await probe(job.result[0].download_url);
  expect(Number(info.streams.find((s) => s.codec_type === 'video')!.nb_read_frames)).toBe(SECONDS * FPS);
}, 120_000);

test('a sync run is split too, and answers with its result', async () => {
  const res = await api('POST', '/ffmpeg/process', encode('sync.mp4'));
  expect(res.status).toBe(200);
  const job = (await api('GET', `/job/${res.body.request_id}`)).body;
  expect(job.split_parts).toBeGreaterThanOrEqual(3);
  const info = await probe(res.body.result[0].download_url);
  expect(Number(info.streams.find((s) => s.codec_type === 'video')!.nb_read_frames)).toBe(SECONDS * FPS);
}, 120_000);

test('a job queued behind a split job starts in the first part slot freed, not after the split job', async () => {
  // Only events start jobs here (no backstop scan): a freed part slot must wake the worker.
  const busy = await startTestStack({
    PARALLEL_MIN_INPUT_SEC: '5',
    PARALLEL_PART_SEC: '3',
    WORK_DIR: join(dir, 'work-busy'),
    JOB_SCAN_INTERVAL_MS: '600000',
  });
  try {
    const long = join(dir, 'long.mp4');
    // 40 s at 640x360 with a keyframe every 2 s: about 13 parts of medium-preset x264, seconds of work.
    await run('ffmpeg', [
      ...['-v', 'error', '-y', '-f', 'lavfi', '-i', 'testsrc2=duration=40:size=640x360:rate=25'],
      ...['-c:v', 'libx264', '-preset', 'ultrafast', '-g', '50', '-pix_fmt', 'yuv420p', long],
    ]);
    const owner = caller(busy, (await busy.newAccount()).authorization);
    const other = caller(busy, (await busy.newAccount()).authorization);
    const put = async (who: typeof owner, name: string, bytes: Buffer) => {
      const reg = await who('POST', '/file', { file_name: name });
      await fetch(reg.body.upload.url, { method: 'PUT', headers: reg.body.upload.headers, body: bytes });
      return reg.body.file.file_path as string;
    };
    const longPath = await put(owner, 'long.mp4', await readFile(long));
    const smallPath = await put(other, 'in.mp4', await readFile(join(dir, 'in.mp4')));
    const a = await owner('POST', '/ffmpeg/process/async', {
      task: { inputs: [{ file_path: longPath }], outputs: [{ file: 'a.mp4', options: ['-c:v', 'libx264', '-preset', 'medium'] }] },
    });
    // Its parts hold both slots (its own and the free one) before the other job arrives.
    await waitFor(
      'the split job encoding parts',
      async () => {
        const runs = await readdir(join(dir, 'work-busy')).catch(() => [] as string[]);
        for (const r of runs)
          if ((await readdir(join(dir, 'work-busy', r)).catch(() => [] as string[])).includes('split-parts')) return true;
        return false;
      },
      30_000,
    );
    const b = await other('POST', '/ffmpeg/process/async', {
      task: { inputs: [{ file_path: smallPath }], outputs: [{ file: 'b.png', options: ['-frames:v', '1'] }] },
    });
    let aWhenBDone = '';
    await waitFor(
      'the queued job done',
      async () => {
        const done = (await other('GET', `/job/${b.body.job_id}`)).body.status === 'completed';
        if (done) aWhenBDone = (await owner('GET', `/job/${a.body.job_id}`)).body.status;
        return done;
      },
      60_000,
    );
    expect(aWhenBDone).toBe('processing');
    const jobA = await waitFor(
      'the split job done',
      async () => {
        const j = (await owner('GET', `/job/${a.body.job_id}`)).body;
        return j.status === 'completed' && j;
      },
      120_000,
    );
    expect(jobA.split_parts).toBeGreaterThanOrEqual(10);
  } finally {
    await busy.close();
  }
}, 240_000);
