// The split benchmarks' output check: a split job's output that lost frames (a part dropped in
// the join) or a stream must not pass as a figure, while the same encode passes.
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { mediaSummary, outputDifferences } from '../src/lib/output-check.js';

const run = promisify(execFile);
let dir: string;

/** 2 s of 160x120 25 fps with a sine (50 frames), encoded fast, with `extra` output options. */
async function encode(name: string, extra: string[] = []): Promise<string> {
  const file = join(dir, name);
  await run('ffmpeg', [
    ...['-v', 'error', '-y', '-f', 'lavfi', '-i', 'testsrc=duration=2:size=160x120:rate=25'],
    ...['-f', 'lavfi', '-i', 'sine=frequency=440:duration=2'],
    ...['-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p', '-c:a', 'aac', ...extra, file],
  ]);
  return file;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'output-check-'));
}, 30_000);
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

test('the same encode has no difference; its frames, streams and duration are read', async () => {
  const bare = await mediaSummary(await encode('bare.mp4'));
  expect(bare).toMatchObject({ streams: ['video:h264', 'audio:aac'], videoFrames: 50, frameSec: 0.04 });
  expect(bare.durationSec).toBeCloseTo(2, 1);
  expect(outputDifferences(bare, await mediaSummary(await encode('same.mp4')))).toEqual([]);
}, 30_000);

test('an output short of half a second of frames, or without its audio, differs', async () => {
  const bare = await mediaSummary(await encode('bare.mp4'));
  const short = await mediaSummary(await encode('short.mp4', ['-t', '1.5']));
  const differs = outputDifferences(bare, short);
  expect(differs).toContainEqual('38 video frames (bare 50)');
  expect(differs.some((d) => d.startsWith('duration '))).toBe(true);
  const silent = await mediaSummary(await encode('silent.mp4', ['-an']));
  expect(outputDifferences(bare, silent)).toEqual(expect.arrayContaining(['streams video:h264 (bare video:h264,audio:aac)']));
}, 30_000);
