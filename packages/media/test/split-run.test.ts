// runFfmpegSplit around the quality checks: progress over the whole job, the scheduler setting the
// parallelism, a failing part, an abort and the time limit (nothing left behind), and the inputs
// it runs whole, saying why.
import { chmod, copyFile, mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import pLimit from 'p-limit';
import { DomainError } from '@media/platform';
import {
  createForkServers,
  runFfmpeg,
  runFfmpegSplit,
  SPLIT_DIR,
  type FfmpegProgress,
  type OpenInput,
  type SplitRunOptions,
} from '../src/ffmpeg/index.js';
import { makeWav, makeWorkDir } from './ffmpeg-fixtures.js';
import { ffmpeg, makeSplitClip, mediaFacts } from './split-helpers.js';

let fixtures: { path: string; remove: () => Promise<void> };
let clip: string; // 10 s, keyframes every 2 s
let oneKeyframe: string; // 6 s, a single keyframe
let twoVideos: string; // 6 s, two video streams
let lateVideo: string; // 6 s of MPEG-TS whose video starts 0.48 s after its audio
let wav: string;
let failingFfmpeg: string;
let olderFfmpeg: string;
let work: { path: string; remove: () => Promise<void> };

beforeAll(async () => {
  fixtures = await makeWorkDir();
  clip = await makeSplitClip(join(fixtures.path, 'clip.mp4'));
  oneKeyframe = join(fixtures.path, 'one-key.mp4');
  twoVideos = join(fixtures.path, 'two-videos.mp4');
  lateVideo = join(fixtures.path, 'late-video.ts');
  const lavfi = (d: number) => ['-f', 'lavfi', '-i', `testsrc2=duration=${d}:size=160x120:rate=25`];
  await Promise.all([
    ffmpeg([
      '-loglevel',
      'error',
      ...lavfi(6),
      '-c:v',
      'libx264',
      '-preset',
      'ultrafast',
      '-g',
      '1000',
      '-pix_fmt',
      'yuv420p',
      oneKeyframe,
    ]),
    ffmpeg([
      '-loglevel',
      'error',
      ...lavfi(6),
      ...lavfi(6),
      '-map',
      '0',
      '-map',
      '1',
      '-c:v',
      'libx264',
      '-preset',
      'ultrafast',
      '-pix_fmt',
      'yuv420p',
      twoVideos,
    ]),
    ffmpeg([
      '-loglevel',
      'error',
      '-itsoffset',
      '0.48',
      ...lavfi(6),
      '-f',
      'lavfi',
      '-i',
      'sine=duration=7',
      '-c:v',
      'libx264',
      '-preset',
      'ultrafast',
      '-g',
      '25',
      '-pix_fmt',
      'yuv420p',
      '-c:a',
      'aac',
      '-f',
      'mpegts',
      lateVideo,
    ]),
  ]);
  wav = await makeWav(join(fixtures.path, 'tone.wav'), 6);
  // ffmpeg, except that a part seeking into the input (every part but the first) fails as an encode can.
  failingFfmpeg = join(fixtures.path, 'ffmpeg-failing-part');
  await writeFile(
    failingFfmpeg,
    '#!/bin/sh\ncase " $* " in *" -ss "*) echo "Error: the part encode broke" >&2; exit 1;; esac\nexec ffmpeg "$@"\n',
  );
  await chmod(failingFfmpeg, 0o755);
  // ffmpeg, saying it is 4.4 (whose input -vn does not keep a video out of stream selection).
  olderFfmpeg = join(fixtures.path, 'ffmpeg-4.4');
  await writeFile(
    olderFfmpeg,
    '#!/bin/sh\n[ "$1" = -version ] && { echo "ffmpeg version 4.4.2-0ubuntu0.22.04.1"; exit 0; }\nexec ffmpeg "$@"\n',
  );
  await chmod(olderFfmpeg, 0o755);
});
afterAll(() => fixtures.remove());

beforeEach(async () => {
  work = await makeWorkDir();
});
afterEach(() => work.remove());

const X264 = ['-c:v', 'libx264', '-preset', 'ultrafast', '-c:a', 'aac'];

async function split(source: string, extra: Partial<SplitRunOptions> = {}, input: Partial<OpenInput> = {}) {
  await copyFile(source, join(work.path, 'in', '0'));
  return runFfmpegSplit({
    workDir: work.path,
    inputs: [{ path: 'in/0', demuxer: 'mov', args: [], ...input }],
    outputs: [{ kind: 'file', fileName: 'out.mp4', args: X264 }],
    timeoutMs: 60_000,
    splitInput: 0,
    partSec: 2.5,
    minInputSec: 5,
    ...extra,
  });
}

async function rejection(p: Promise<unknown>): Promise<unknown> {
  return p.then(
    () => {
      throw new Error('expected the run to fail');
    },
    (e: unknown) => e,
  );
}

/** Nothing of the split is left: no parts directory, and (for a failed run) nothing in out/. */
async function expectNothingLeft(failed: boolean): Promise<void> {
  expect(await readdir(work.path)).not.toContain(SPLIT_DIR);
  if (failed) expect(await readdir(join(work.path, 'out')).catch(() => [])).toEqual([]);
}

function expectGone(pid: number): void {
  expect(() => process.kill(pid, 0)).toThrow(expect.objectContaining({ code: 'ESRCH' }));
  expect(() => process.kill(-pid, 0)).toThrow(expect.objectContaining({ code: 'ESRCH' }));
}

describe('runFfmpegSplit', () => {
  it('reports the whole job: percent over all parts, 100 only when the join is done', async () => {
    const seen: FfmpegProgress[] = [];
    const result = await split(clip, { progressIntervalMs: 0, onProgress: (p) => seen.push(p) });
    expect(result.parts).toBe(4);
    expect(result.outputs.map((o) => o.fileName)).toEqual(['out.mp4']);
    expect(result.durationMs).toBeGreaterThan(0);
    expect(seen.length).toBeGreaterThanOrEqual(2);
    const percents = seen.map((p) => p.percent!);
    for (let i = 1; i < percents.length; i++) expect(percents[i]).toBeGreaterThanOrEqual(percents[i - 1]!);
    expect(seen.slice(0, -1).every((p) => !p.done && p.percent! < 100)).toBe(true);
    expect(seen.at(-1)).toMatchObject({ done: true, percent: 100, etaSec: 0, outTimeSec: 10, frame: 250 });
    await expectNothingLeft(false);
  });

  it('runs its parts and the join from fork servers, as Jobs does', async () => {
    const forkServers = createForkServers({ enabled: true });
    try {
      const result = await split(clip, { forkServers });
      expect(result.parts).toBe(4);
      expect((await mediaFacts(join(work.path, 'out', 'out.mp4'))).streams[0]!.frames).toBe(250);
    } finally {
      await forkServers.close();
    }
  });

  it('hands every part to the scheduler, which sets how many run at once', async () => {
    const limit = pLimit(1);
    let units = 0;
    let running = 0;
    let most = 0;
    const result = await split(clip, {
      schedule: (work) => {
        units++;
        return limit(async () => {
          most = Math.max(most, ++running);
          try {
            return await work();
          } finally {
            running--;
          }
        });
      },
    });
    expect(result.parts).toBe(4);
    expect(units).toBe(4);
    expect(most).toBe(1);
  });

  it('keeps the streams the task maps, in its order', async () => {
    const result = await split(clip, { outputs: [{ kind: 'file', fileName: 'out.mp4', args: ['-map', '0:a', '-map', '0:v:0', ...X264] }] });
    expect(result.parts).toBe(4);
    const facts = await mediaFacts(join(work.path, 'out', 'out.mp4'));
    expect(facts.streams.map((s) => [s.type, s.codec])).toEqual([
      ['audio', 'aac'],
      ['video', 'h264'],
    ]);
    expect(facts.streams[1]!.frames).toBe(250);
  });

  it("gives a part's frames the whole run's pixels, also where a seek would move the format conversion", async () => {
    // ffmpeg's accurate seek puts a trim ahead of the filters, which moves the automatic pixel
    // format conversion before lut/lutrgb: their rounding then differs in every part but the
    // first. Lossless encodes, so decoded frames compare exactly.
    const args = ['-vf', 'lut=y=negval,lutrgb=r=negval', '-c:v', 'libx264', '-preset', 'ultrafast', '-qp', '0', '-an'];
    const frames = async (path: string) =>
      (await ffmpeg(['-loglevel', 'error', '-i', path, '-map', '0:v', '-f', 'framemd5', '-'])).stdout
        .split('\n')
        .filter((l) => l && !l.startsWith('#'))
        .map((l) => l.split(',').at(-1)!.trim());
    const result = await split(clip, { outputs: [{ kind: 'file', fileName: 'out.mp4', args }] });
    expect(result.parts).toBe(4);
    const bareWork = await makeWorkDir();
    try {
      await copyFile(clip, join(bareWork.path, 'in', '0'));
      await runFfmpeg({
        workDir: bareWork.path,
        inputs: [{ path: 'in/0', demuxer: 'mov', args: [] }],
        outputs: [{ kind: 'file', fileName: 'out.mp4', args }],
        timeoutMs: 60_000,
      });
      const [whole, parts] = await Promise.all([frames(join(bareWork.path, 'out', 'out.mp4')), frames(join(work.path, 'out', 'out.mp4'))]);
      expect(parts).toHaveLength(250);
      expect(parts).toEqual(whole);
    } finally {
      await bareWork.remove();
    }
  });

  it('gives each part the side files the filters read (a font), by the same relative path', async () => {
    await mkdir(join(work.path, 'side'), { recursive: true });
    await copyFile('/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf', join(work.path, 'side', '1.ttf'));
    const args = ['-vf', 'drawtext=fontfile=side/1.ttf:text=part:x=10:y=10', '-c:v', 'libx264', '-preset', 'ultrafast', '-an'];
    const result = await split(clip, { outputs: [{ kind: 'file', fileName: 'out.mp4', args }] });
    expect(result.parts).toBe(4);
    expect((await mediaFacts(join(work.path, 'out', 'out.mp4'))).streams[0]!.frames).toBe(250);
    await expectNothingLeft(false);
  });

  it('runs a Matroska input whole: its seek may land on an earlier keyframe', async () => {
    const mkv = join(fixtures.path, 'clip.mkv');
    await ffmpeg(['-loglevel', 'error', '-i', clip, '-c', 'copy', mkv]);
    const result = await split(mkv, {}, { demuxer: 'matroska' });
    expect(result.parts).toBe(1);
    expect(result.wholeReason).toMatch(/matroska demuxer are not split/);
    expect(result.outputs.map((o) => o.fileName)).toEqual(['out.mp4']);
  });

  it("fails with a failing part's error, stops the others and leaves nothing behind", async () => {
    const pids: number[] = [];
    const err = await rejection(split(clip, { ffmpegPath: failingFfmpeg, onSpawn: (pid) => pids.push(pid) }));
    expect(err).toBeInstanceOf(DomainError);
    expect((err as DomainError).message).toMatch(/^FFmpeg command failed with exit code 1: .*the part encode broke/);
    expect(pids.length).toBeGreaterThanOrEqual(2);
    for (const pid of pids) expectGone(pid);
    await expectNothingLeft(true);
  });

  it('stops every part when aborted mid-run, with the abort reason', async () => {
    const controller = new AbortController();
    const pids: number[] = [];
    const reason = new Error('worker shutting down');
    // -re: each part takes its media time in real time, so the abort lands while all of them run.
    const run = split(
      clip,
      {
        signal: controller.signal,
        progressIntervalMs: 0,
        onSpawn: (pid) => pids.push(pid),
        onProgress: (p) => {
          if (pids.length === 4 && p.outTimeSec > 0) controller.abort(reason);
        },
      },
      { args: ['-re'] },
    );
    expect(await rejection(run)).toBe(reason);
    expect(pids.length).toBe(4);
    for (const pid of pids) expectGone(pid);
    await expectNothingLeft(true);
  });

  it('stops every part at the time limit', async () => {
    const err = await rejection(split(clip, { timeoutMs: 1500 }, { args: ['-re'] }));
    expect(err).toBeInstanceOf(DomainError);
    expect((err as DomainError).message).toBe('Processing timed out');
    await expectNothingLeft(true);
  });

  const whole: Array<[string, () => string, () => Partial<SplitRunOptions>, Partial<OpenInput>, string]> = [
    ['an input shorter than the minimum', () => clip, () => ({ minInputSec: 30 }), {}, 'the input is shorter than 30 s'],
    ['an input without video', () => wav, () => ({}), { demuxer: 'wav' }, 'the input has no video stream'],
    ['an input with two video streams', () => twoVideos, () => ({}), {}, 'the input has 2 video streams'],
    ['a video with a single keyframe', () => oneKeyframe, () => ({}), {}, 'the video has too few keyframes'],
    [
      'an output that maps a stream by its index',
      () => clip,
      () => ({ outputs: [{ kind: 'file', fileName: 'out.mp4', args: ['-map', '0:0', ...X264] }] }),
      {},
      "the output map 0:0 is not split (map the input's streams by type)",
    ],
    [
      'a video that starts after its audio',
      () => lateVideo,
      () => ({}),
      { demuxer: 'mpegts' },
      "the video starts 0.503 s after the input's other streams",
    ],
    [
      'an output that sets its frame rate',
      () => clip,
      () => ({ outputs: [{ kind: 'file', fileName: 'out.mp4', args: ['-r', '25', ...X264] }] }),
      {},
      'the output sets its frame rate (-r)',
    ],
    ['a run with an ffmpeg older than 5.1', () => clip, () => ({ ffmpegPath: olderFfmpeg }), {}, 'the ffmpeg in use is older than 5.1'],
  ];
  it.each(whole)('runs %s whole, as runFfmpeg, saying why', async (_, source, extra, input, reason) => {
    const result = await split(source(), extra(), input);
    expect(result).toMatchObject({ parts: 1, wholeReason: reason });
    expect(result.outputs.map((o) => o.fileName)).toEqual(['out.mp4']);
    expect(result.outputs[0]!.size).toBeGreaterThan(0);
    await expectNothingLeft(false);
  });
});
