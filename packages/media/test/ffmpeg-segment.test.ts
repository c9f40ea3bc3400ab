// Segment outputs with the real ffmpeg: the parts and the segment list come back as files of out/,
// and a run that would split into more parts than the output's share fails with the bound's
// sentence, never writing more files than the pinned -segment_wrap allows.
import { readdir } from 'node:fs/promises';
import { copyFile } from 'node:fs/promises';
import { join } from 'node:path';
import { create } from '@bufbuild/protobuf';
import { DomainError } from '@media/platform';
import { TaskSchema } from '@media/proto/media/jobs/v1/jobs_pb.js';
import { probeInput, runFfmpeg, type RunOutput } from '../src/ffmpeg/index.js';
import { planTask, type PlannedOutput } from '../src/policy/index.js';
import { makeMp4, makeWorkDir } from './ffmpeg-fixtures.js';

let fixtures: { path: string; remove: () => Promise<void> };
let clip: string; // 5 s, a keyframe every second
let work: { path: string; remove: () => Promise<void> };

beforeAll(async () => {
  fixtures = await makeWorkDir();
  clip = await makeMp4(join(fixtures.path, 'clip.mp4'), { seconds: 5, size: '160x120', gop: 25 });
});
afterAll(() => fixtures.remove());
beforeEach(async () => {
  work = await makeWorkDir();
});
afterEach(() => work.remove());

const planOutputs = (outputs: Array<{ file: string; options: string[] }>) =>
  planTask(create(TaskSchema, { inputs: [{ filePath: 'dir_x/in.mp4', options: [] }], outputs: outputs.map((o) => ({ ...o, maps: [] })) }))
    .outputs;

/** Runs the planned outputs as Jobs does (stages/run.ts). */
async function run(outputs: PlannedOutput[], watchIntervalMs?: number) {
  await copyFile(clip, join(work.path, 'in', '0'));
  const runOutputs: RunOutput[] = outputs.map((o) => ({
    fileName: o.fileName,
    args: o.args,
    kind: o.kind,
    ...(o.kind === 'segments' ? { maxFiles: o.maxFiles } : {}),
  }));
  return runFfmpeg({
    workDir: work.path,
    inputs: [{ path: 'in/0', demuxer: 'mov', args: [] }],
    outputs: runOutputs,
    timeoutMs: 30_000,
    maxOutputFiles: 1000,
    ...(watchIntervalMs ? { watchIntervalMs } : {}),
  });
}

test('the recipe: 2-second parts by stream copy, each a file of out/, and the list next to them', async () => {
  const planned = planOutputs([
    {
      file: 'out_%03d.mp4',
      options: ['-c', 'copy', '-map', '0', '-f', 'segment', '-segment_time', '2', '-reset_timestamps', '1', '-segment_list', 'parts.csv'],
    },
  ]);
  const result = await run(planned);
  expect(result.outputs.map((o) => o.fileName)).toEqual(['out_000.mp4', 'out_001.mp4', 'out_002.mp4', 'parts.csv']);
  const first = await probeInput('out/out_000.mp4', { workDir: work.path });
  expect(first.streams.map((s) => s.codec)).toEqual(['h264', 'aac']);
  expect(first.durationSec).toBeGreaterThan(1.9);
  expect(first.durationSec).toBeLessThan(2.2);
});

test('more parts than the share: the run fails with the bound, and the disk never holds more than the wrap allows', async () => {
  // A numbered output of 995 frames leaves the parts a share of 5 files (-segment_wrap 6).
  const [parts, frames] = planOutputs([
    { file: 'p_%03d.ts', options: ['-c', 'copy', '-f', 'segment', '-segment_time', '0.2', '-break_non_keyframes', '1'] },
    { file: 'f_%d.jpg', options: ['-frames:v', '995'] },
  ]) as [PlannedOutput, PlannedOutput];
  expect(parts.maxFiles).toBe(5);
  expect(parts.args.slice(-2)).toEqual(['-segment_wrap', '6']);
  const err = await run([parts], 60_000).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(DomainError);
  expect((err as DomainError).message).toBe(
    "Output 'p_%03d.ts' was split into more than 5 parts, its share of the task's files; make the parts longer (-segment_time) or split at fewer points (-segment_times, -segment_frames)",
  );
  expect((err as DomainError).status).toBe(400);
  // Some 25 parts were cut; the wrap kept them to 6 files (the watch is slower than this run on purpose).
  const written = (await readdir(join(work.path, 'out'))).filter((n) => /^p_\d{3}\.ts$/.test(n));
  expect(written.length).toBe(6);
  expect(frames.maxFiles).toBe(995);
});
