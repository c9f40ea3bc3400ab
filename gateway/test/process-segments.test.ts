// Segment outputs (-f segment) through POST /ffmpeg/process: each part and the segment list is a
// result item, and a run that splits into more parts than the output's share of the task's files
// fails with the bound's sentence.
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startTestStack, type TestStack } from '@media/stack/testing';
import { caller } from './helpers.js';
import { makeMp4 } from './media-fixtures.js';

const run = promisify(execFile);
let stack: TestStack;
let api: ReturnType<typeof caller>;
let work: string;
let dirId: string;

const process = (task: unknown) => api('POST', '/ffmpeg/process', { task });
type Item = { file_name: string; download_url: string };
const download = async (url: string) => Buffer.from(await (await fetch(url)).arrayBuffer());

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'segments-'));
  stack = await startTestStack();
  api = caller(stack, (await stack.newAccount()).authorization);
  const { body } = await api('POST', '/file', { file_name: 'clip.mp4' });
  const put = await fetch(body.upload.url, { method: 'PUT', headers: body.upload.headers, body: await makeMp4(work, 'clip.mp4', 2) });
  expect(put.status).toBe(200);
  dirId = body.file.dir_id;
}, 60_000);

afterAll(async () => {
  await stack?.close();
  await rm(work, { recursive: true, force: true });
});

test('each part and the segment list are result items; the parts play', async () => {
  const res = await process({
    inputs: [{ file_path: `${dirId}/clip.mp4` }],
    outputs: [
      {
        file: 'part_%03d.mp4',
        options: [
          ...['-c:v', 'libx264', '-preset', 'ultrafast', '-force_key_frames', 'expr:gte(t,n_forced*1)'],
          ...['-f', 'segment', '-segment_time', '1', '-reset_timestamps', '1', '-segment_list', 'parts.m3u8'],
        ],
      },
    ],
  });
  expect(res.status).toBe(200);
  const items: Item[] = res.body.result;
  expect(items.map((r) => r.file_name).sort()).toEqual(['part_000.mp4', 'part_001.mp4', 'parts.m3u8']);
  const list = (await download(items.find((r) => r.file_name === 'parts.m3u8')!.download_url)).toString();
  expect(list).toMatch(/^part_000\.mp4$/m);
  expect(list).not.toContain('out/');
  const part = await download(items.find((r) => r.file_name === 'part_001.mp4')!.download_url);
  await writeFile(join(work, 'part.mp4'), part);
  const { stdout } = await run('ffprobe', [
    '-v',
    'error',
    '-print_format',
    'json',
    '-show_format',
    '-show_streams',
    join(work, 'part.mp4'),
  ]);
  const probed = JSON.parse(stdout);
  expect(probed.streams.map((s: { codec_name: string }) => s.codec_name)).toEqual(['h264', 'aac']);
  expect(Number(probed.format.duration)).toBeGreaterThan(0.9);
  expect(Number(probed.format.duration)).toBeLessThan(1.2);
});

test('more parts than the share of the task files: 400 with the bound, no result', async () => {
  // 995 frames for the thumbnails leave the parts 5 files; cutting at every 0.1 s makes about 20.
  const res = await process({
    inputs: [{ file_path: `${dirId}/clip.mp4` }],
    outputs: [
      { file: 'p_%03d.ts', options: ['-c', 'copy', '-f', 'segment', '-segment_time', '0.1', '-break_non_keyframes', '1'] },
      { file: 't_%d.jpg', options: ['-frames:v', '995', '-vf', 'scale=16:16'] },
    ],
  });
  expect(res.status).toBe(400);
  expect(res.body.error).toBe(
    "Output 'p_%03d.ts' was split into more than 5 parts, its share of the task's files; make the parts longer (-segment_time) or split at fewer points (-segment_times, -segment_frames)",
  );
});
