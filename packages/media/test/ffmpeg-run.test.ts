// runFfmpeg with the real ffmpeg: outputs, progress, failures, the time limit and output limits.
import { existsSync } from 'node:fs';
import { copyFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { DomainError } from '@media/platform';
import type { ForkServerPool } from '@media/fork-server';
import { createForkServers, probeInput, runFfmpeg, type FfmpegProgress, type RunFfmpegOptions } from '../src/ffmpeg/index.js';
import { processCpuSec } from '../src/ffmpeg/speed-floor.js';
import { planTask } from '../src/policy/index.js';
import { create } from '@bufbuild/protobuf';
import { TaskSchema } from '@media/proto/media/jobs/v1/jobs_pb.js';

/** The planned outputs of a task of one uploaded input, as Jobs plans them. */
const planOutputs = (outputs: Array<{ file: string; options: string[] }>) =>
  planTask(create(TaskSchema, { inputs: [{ filePath: 'dir_x/in.mp4', options: [] }], outputs: outputs.map((o) => ({ ...o, maps: [] })) }))
    .outputs;
import { makeMp4, makeWorkDir } from './ffmpeg-fixtures.js';

let fixtures: { path: string; remove: () => Promise<void> };
let shortMp4: string; // 2 s, 320x240
let longMp4: string; // 6 s, 640x360
let work: { path: string; remove: () => Promise<void> };
/** The fork servers of the mode under test (none: every run starts directly). */
let forkServers: ForkServerPool | undefined;

beforeAll(async () => {
  fixtures = await makeWorkDir();
  [shortMp4, longMp4] = await Promise.all([
    makeMp4(join(fixtures.path, 'short.mp4')),
    makeMp4(join(fixtures.path, 'long.mp4'), { seconds: 6, size: '640x360' }),
  ]);
});
afterAll(() => fixtures.remove());

beforeEach(async () => {
  work = await makeWorkDir();
});
afterEach(() => work.remove());

/** Stages a fixture as in/0 and runs ffmpeg on it. */
async function run(
  source: string,
  outputs: Array<Omit<RunFfmpegOptions['outputs'][number], 'kind'> & { kind?: RunFfmpegOptions['outputs'][number]['kind'] }>,
  extra: Partial<RunFfmpegOptions> = {},
) {
  await copyFile(source, join(work.path, 'in', '0'));
  return runFfmpeg({
    workDir: work.path,
    inputs: [{ path: 'in/0', demuxer: 'mov', args: [] }],
    outputs: outputs.map((o) => ({ kind: 'file' as const, ...o })),
    timeoutMs: 30_000,
    ...(forkServers ? { forkServers } : {}),
    ...extra,
  });
}

async function rejection(p: Promise<unknown>): Promise<DomainError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(DomainError);
  return err as DomainError;
}

/** Throws ESRCH once neither the process nor its group exists any more. */
function expectGone(pid: number): void {
  expect(() => process.kill(pid, 0)).toThrow(expect.objectContaining({ code: 'ESRCH' }));
  expect(() => process.kill(-pid, 0)).toThrow(expect.objectContaining({ code: 'ESRCH' }));
}

// Every case both ways: forked from the fork server (the default) and started directly.
describe.each(['fork server', 'direct'] as const)('runFfmpeg, %s', (mode) => {
  beforeAll(() => {
    forkServers = mode === 'fork server' ? createForkServers({ enabled: true }) : undefined;
  });
  afterAll(async () => {
    await forkServers?.close();
    forkServers = undefined;
  });

  it('transcodes mp4 to webm, a png thumbnail and mp3 audio in one run', async () => {
    const result = await run(shortMp4, [
      { args: ['-c:v', 'libvpx', '-deadline', 'realtime', '-cpu-used', '8', '-b:v', '300k', '-c:a', 'libvorbis'], fileName: 'a.webm' },
      { args: ['-ss', '1', '-frames:v', '1'], fileName: 'thumb.png' },
      { args: ['-vn', '-c:a', 'libmp3lame', '-b:a', '64k'], fileName: 'audio.mp3' },
    ]);
    expect(result.outputs.map((o) => o.fileName)).toEqual(['a.webm', 'audio.mp3', 'thumb.png']);
    for (const o of result.outputs) {
      expect(o.size).toBeGreaterThan(0);
      expect(o.path).toBe(join(work.path, 'out', o.fileName));
    }
    expect(result.durationMs).toBeGreaterThan(0);
    const webm = await probeInput('out/a.webm', { workDir: work.path });
    expect(webm.format).toBe('matroska');
    expect(webm.streams.map((s) => s.codec)).toEqual(['vp8', 'vorbis']);
    expect((await probeInput('out/audio.mp3', { workDir: work.path })).format).toBe('mp3');
  });

  it('lists every file of a numbered pattern, and odd names stay plain files in out/', async () => {
    const result = await run(shortMp4, [
      { args: ['-vf', 'fps=5,scale=64:-2'], fileName: 'thumb_%03d.png' },
      { args: ['-vn', '-c:a', 'pcm_s16le', '-f', 'wav'], fileName: '-odd:name.wav' },
    ]);
    const names = result.outputs.map((o) => o.fileName);
    expect(names).toContain('-odd:name.wav');
    const thumbs = names.filter((n) => n.startsWith('thumb_'));
    expect(thumbs.length).toBeGreaterThanOrEqual(10);
    expect(thumbs[0]).toBe('thumb_001.png');
    expect(thumbs).toEqual([...thumbs].sort());
  });

  it('reports progress with increasing output time and a final 100 %', async () => {
    const seen: FfmpegProgress[] = [];
    const probed = await probeInput(longMp4);
    // veryslow: about a second here, so ffmpeg's 0.5 s progress period yields reports in between.
    await run(longMp4, [{ args: ['-c:v', 'libx264', '-preset', 'veryslow', '-an'], fileName: 'p.mp4' }], {
      durationSec: probed.durationSec,
      progressIntervalMs: 0,
      onProgress: (p) => seen.push(p),
    });
    expect(seen.length).toBeGreaterThanOrEqual(3);
    for (let i = 1; i < seen.length; i++) expect(seen[i]!.outTimeSec).toBeGreaterThanOrEqual(seen[i - 1]!.outTimeSec);
    const last = seen[seen.length - 1]!;
    expect(last).toMatchObject({ done: true, percent: 100, etaSec: 0 });
    expect(last.outTimeSec).toBeGreaterThan(5);
    expect(last.frame).toBeGreaterThan(100);
    expect(seen.slice(0, -1).every((p) => !p.done && p.percent !== undefined && p.percent < 100)).toBe(true);
    expect(seen.some((p) => p.percent! > 0 && p.percent! < 100 && p.etaSec !== undefined && p.speed > 0)).toBe(true);
  });

  it('fails with the exit code and a short detail without the work directory', async () => {
    const err = await rejection(run(shortMp4, [{ args: ['-c:v', 'libx264', '-preset', 'nope'], fileName: 'x.mp4' }]));
    expect(err.status).toBe(500);
    expect(err.message).toMatch(/^FFmpeg command failed with exit code \d+: .*preset/);
    expect(err.message.length).toBeLessThan(400);
    expect(err.message).not.toContain(work.path);
    expect(err.message).not.toMatch(/0x[0-9a-f]{6,}/);
  });

  it('ends a run whose media time falls under the speed floor while ffmpeg idles, uncharged 500', async () => {
    // -re reads the 6 s clip at 1x: under a 3x floor over 2 s, it is ended before its end, having
    // advanced about 2 s (ffmpeg reports every 0.5 s).
    const err = await rejection(
      run(longMp4, [{ args: ['-c', 'copy'], fileName: 'paced.mp4' }], {
        inputs: [{ path: 'in/0', demuxer: 'mov', args: ['-re'] }],
        speedFloor: { minSpeed: 3, windowMs: 2000 },
      }),
    );
    expect(err.status).toBe(500);
    expect(err.message).toMatch(
      /^Processing stopped early: the output's media time advanced [1-3](\.\d+)? s in the last 2 s, under the minimum of 3x real time /,
    );
    expect(existsSync(join(work.path, 'out', 'paced.mp4'))).toBe(true); // the runner's caller removes the work directory
  });

  it('ends an idle run that reports no media time at all: every frame dropped while the read is paced', async () => {
    const err = await rejection(
      run(longMp4, [{ args: ['-vf', 'select=0', '-an'], fileName: 'none.mp4' }], {
        inputs: [{ path: 'in/0', demuxer: 'mov', args: ['-re'] }],
        speedFloor: { minSpeed: 0.5, windowMs: 2000 },
      }),
    );
    expect(err.status).toBe(500);
    expect(err.message).toMatch(
      /^Processing stopped early: the output's media time advanced 0 s in the last 2 s, under the minimum of 0\.5x /,
    );
  });

  it('does not end a busy encode under the speed floor: its CPU time counts as headway', async () => {
    let pid: number | undefined;
    const cpu: Array<number | undefined> = [];
    // veryslow keeps ffmpeg busy; its media time is far under 1000x, so only the CPU time saves it.
    const result = await run(longMp4, [{ args: ['-c:v', 'libx264', '-preset', 'veryslow', '-an'], fileName: 'busy.mp4' }], {
      // A window of 1.5 s: under a loaded CI, 300 ms windows saw ffmpeg get under a tenth of a core.
      speedFloor: { minSpeed: 1000, windowMs: 1500 },
      onSpawn: (p) => (pid = p),
      progressIntervalMs: 0,
      onProgress: () => cpu.push(processCpuSec(pid)),
    });
    expect(result.outputs.map((o) => o.fileName)).toEqual(['busy.mp4']);
    // The CPU time of the sandboxed process is readable (fork server or not).
    expect(cpu.some((c) => c !== undefined && c > 0)).toBe(true);
  });

  it('kills the whole process group at the time limit', async () => {
    let pid = 0;
    const reached: number[] = [];
    const err = await rejection(
      run(longMp4, [{ args: ['-c:v', 'libx264', '-preset', 'veryslow', '-vf', 'scale=1280:720'], fileName: 'slow.mp4' }], {
        timeoutMs: 300,
        onSpawn: (p) => (pid = p),
        progressIntervalMs: 0,
        onProgress: (p) => reached.push(p.outTimeSec),
      }),
    );
    expect(err.message).toBe('Processing timed out');
    expect(err.status).toBe(500);
    // Cut at the limit, not at ffmpeg's own end: its output never reached the input's 6 s.
    expect(Math.max(0, ...reached)).toBeLessThan(6);
    expect(pid).toBeGreaterThan(0);
    expectGone(pid);
  });

  it('stops when a task writes more files than allowed', async () => {
    let pid = 0;
    const err = await rejection(
      // 1,440 frames: writing them all takes seconds, so a watch that works stops it long before,
      // even on a busy machine (at 150, and once at 600 frames with the whole suite running, a
      // run wrote them all).
      run(longMp4, [{ args: ['-vf', 'fps=240'], fileName: 'f_%04d.png' }], {
        maxOutputFiles: 5,
        watchIntervalMs: 100,
        onSpawn: (p) => (pid = p),
      }),
    );
    expect(err.message).toBe('Task writes more than 5 files');
    expect(err.status).toBe(500);
    expectGone(pid);
    expect((await readdir(join(work.path, 'out'))).length).toBeLessThan(1440); // stopped before the end
  });

  it('writes no more files than the policy counts for a numbered output (the last matching -frames wins)', async () => {
    // The policy used to count the smallest -frames (3); ffmpeg applies the last one matching the stream (12).
    const [planned] = planOutputs([{ file: 'f_%03d.png', options: ['-frames:v', '3', '-frames:v:0', '12'] }]) as [
      ReturnType<typeof planOutputs>[number],
    ];
    expect(planned.maxFiles).toBe(12);
    const result = await run(shortMp4, [{ args: planned.args, fileName: planned.fileName }], { maxOutputFiles: planned.maxFiles });
    expect(result.outputs).toHaveLength(12);
  });

  it('a numbered output writes no audio files: mapping the audio stream into it gets no stream, not a file per packet', async () => {
    // Without the -an the policy adds, each audio packet became a file (87 for 2 s of audio, by hand), whatever -frames:v said.
    const [planned] = planOutputs([{ file: 'a_%03d.png', options: ['-map', '0:1', '-c:a', 'pcm_s16le', '-frames:v', '3'] }]) as [
      ReturnType<typeof planOutputs>[number],
    ];
    expect(planned.args.slice(-5)).toEqual(['-an', '-sn', '-dn', '-frames', '3']);
    const err = await rejection(run(shortMp4, [{ args: planned.args, fileName: planned.fileName }], { maxOutputFiles: 1000 }));
    expect(err.message).toMatch(/^FFmpeg command failed/);
    expect(await readdir(join(work.path, 'out')).catch(() => [])).toEqual([]);
  });

  it('a numbered output fed by an audio graph output writes no more files than its frame bound', async () => {
    // -an does not drop a mapped graph label; before the bound was repeated for every stream, each
    // audio packet became a file (87 for 2 s, 25,841 for 10 minutes), whatever -frames:v said.
    const [first, planned] = planOutputs([
      { file: 'first.mp4', options: ['-filter_complex', '[0:a]anull[aud]', '-map', '0:v'] },
      { file: 'f_%06d.png', options: ['-map', '[aud]', '-frames:v', '3', '-c:a', 'pcm_s16le'] },
    ]) as [ReturnType<typeof planOutputs>[number], ReturnType<typeof planOutputs>[number]];
    expect(planned.maxFiles).toBe(3);
    const result = await run(
      shortMp4,
      [
        { args: first.args, fileName: first.fileName },
        { args: planned.args, fileName: planned.fileName },
      ],
      { maxOutputFiles: 1 + planned.maxFiles },
    );
    expect(result.outputs.filter((o) => o.fileName.startsWith('f_')).length).toBeLessThanOrEqual(3);
  });

  it('fails when an output gets nothing: ffmpeg exits 0, but the task did not do what it asked', async () => {
    // A thumbnail past the end of the 2 s input, and a numbered output whose filter drops every frame.
    const err = await rejection(
      run(shortMp4, [
        { args: ['-frames:v', '1'], fileName: 'ok.png' },
        { args: ['-ss', '100', '-frames:v', '1'], fileName: 'late.png' },
        { args: ['-vf', 'select=gt(t\\,100)', '-frames:v', '5'], fileName: 'f_%03d.png' },
      ]),
    );
    expect(err.status).toBe(500);
    expect(err.message).toBe(
      "FFmpeg command failed with exit code 0: no output was written for 'late.png', 'f_%03d.png': no frame reached them (is -ss past the end of the input, or does a filter drop every frame?)",
    );
  });

  it('stops an output that grows past the file size limit', async () => {
    const err = await rejection(
      run(longMp4, [{ args: ['-c:v', 'rawvideo', '-an', '-f', 'avi'], fileName: 'huge.avi' }], { maxOutputBytes: 2_000_000 }),
    );
    expect(err.message).toBe('Output exceeds the 2 MB file size limit');
    const files = await readdir(join(work.path, 'out'));
    expect(files).toEqual(['huge.avi']);
  });

  // Kernel limits come from util-linux prlimit; without it the runner logs a warning and runs unlimited.
  (existsSync('/usr/bin/prlimit') ? it : it.skip)('fails a job that needs more memory than its address-space limit', async () => {
    const args = ['-t', '0.5', '-vf', 'scale=4096:2160', '-c:v', 'libx264', '-preset', 'ultrafast'];
    const err = await rejection(run(shortMp4, [{ args, fileName: 'big.mp4' }], { limits: { addressSpaceBytes: 512 * 1024 ** 2 } }));
    expect(err.message).toMatch(/^FFmpeg command failed with exit code \d+: /);
  });

  it('aborts on the signal and leaves no process behind', async () => {
    let pid = 0;
    const controller = new AbortController();
    const pending = run(longMp4, [{ args: ['-c:v', 'libx264', '-preset', 'veryslow'], fileName: 'a.mp4' }], {
      signal: controller.signal,
      onSpawn: (p) => {
        pid = p;
        setTimeout(() => controller.abort(new Error('worker shutting down')), 100);
      },
    });
    await expect(pending).rejects.toThrow('worker shutting down');
    expectGone(pid);
  });
});
