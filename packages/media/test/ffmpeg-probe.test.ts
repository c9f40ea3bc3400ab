// probeInput and runFfprobe on real media, and binary resolution (PATH first, npm fallback).
import { copyFile } from 'node:fs/promises';
import { join } from 'node:path';
import { DomainError } from '@media/platform';
import { clearBinaryCache, probeInput, resolveBinaries, runFfmpeg, runFfprobe } from '../src/ffmpeg/index.js';
import { makeMp4, makePng, makeWav, makeWorkDir } from './ffmpeg-fixtures.js';

let work: { path: string; remove: () => Promise<void> };

beforeAll(async () => {
  work = await makeWorkDir();
  await Promise.all([makeMp4(join(work.path, 'in', '0')), makePng(join(work.path, 'in', 'image')), makeWav(join(work.path, 'in', 'tone'))]);
});
afterAll(() => work.remove());

describe('probeInput', () => {
  it('reports the demuxer, duration and streams of an mp4 staged without extension', async () => {
    const probed = await probeInput('in/0', { workDir: work.path });
    expect(probed).toMatchObject({ format: 'mov', formatName: 'mov,mp4,m4a,3gp,3g2,mj2', formatLongName: 'QuickTime / MOV' });
    expect(probed.durationSec).toBeCloseTo(2, 1);
    expect(probed.streams).toEqual([
      expect.objectContaining({ index: 0, type: 'video', codec: 'h264', width: 320, height: 240, fps: 25 }),
      expect.objectContaining({ index: 1, type: 'audio', codec: 'aac', sampleRate: 44100, channels: 1 }),
    ]);
  });

  it('accepts single images and audio through their own demuxers', async () => {
    expect((await probeInput('in/image', { workDir: work.path })).format).toBe('png_pipe');
    expect((await probeInput(join(work.path, 'in', 'tone'))).format).toBe('wav');
  });

  it('refuses empty files, using the display name', async () => {
    const { writeFile } = await import('node:fs/promises');
    await writeFile(join(work.path, 'in', 'empty'), '');
    await expect(probeInput('in/empty', { workDir: work.path, displayName: 'clip.mp4' })).rejects.toThrow(
      "Input file 'clip.mp4' is not a supported media file: the file is empty",
    );
  });
});

describe('runFfprobe', () => {
  it('returns ffprobe JSON for validated options', async () => {
    const { json, durationMs } = await runFfprobe({
      workDir: work.path,
      input: { path: 'in/0', demuxer: 'mov' },
      args: ['-show_entries', 'format=duration:stream=codec_name', '-select_streams', 'v'],
      timeoutMs: 10_000,
    });
    expect(json).toMatchObject({ streams: [{ codec_name: 'h264' }], format: { duration: expect.stringMatching(/^2\./) } });
    expect(durationMs).toBeGreaterThan(0);
  });

  it('fails with exit code and sanitized detail', async () => {
    const err = await runFfprobe({
      workDir: work.path,
      input: { path: 'in/0', demuxer: 'mov' },
      args: ['-show_entries', 'nosuchsection=x'],
      timeoutMs: 10_000,
    }).then(
      () => undefined,
      (e: unknown) => e as DomainError,
    );
    expect(err).toBeInstanceOf(DomainError);
    expect(err!.status).toBe(500);
    expect(err!.message).toMatch(/^FFprobe command failed with exit code \d+: /);
    expect(err!.message).not.toContain(work.path);
  });

  it('refuses JSON larger than the cap', async () => {
    await expect(
      runFfprobe({
        workDir: work.path,
        input: { path: 'in/0', demuxer: 'mov' },
        args: ['-show_packets'],
        timeoutMs: 10_000,
        maxJsonBytes: 1000,
      }),
    ).rejects.toThrow('Probe output exceeds the 1 KB limit');
  });
});

describe('resolveBinaries', () => {
  afterEach(() => clearBinaryCache());

  it('takes ffmpeg and ffprobe from PATH', async () => {
    const found = await resolveBinaries();
    expect(found).toEqual({ ffmpeg: expect.stringMatching(/\/ffmpeg$/), ffprobe: expect.stringMatching(/\/ffprobe$/), source: 'path' });
    expect(found.ffmpeg).not.toContain('node_modules');
  });

  it('falls back to the npm binaries with a warning, and the sandbox works with them', async () => {
    const warnings: string[] = [];
    const logger = { warn: (_obj: object, msg: string) => warnings.push(msg) };
    const npm = await resolveBinaries({ env: { PATH: '' }, logger });
    expect(npm.source).toBe('npm');
    expect(npm.ffmpeg).toMatch(/node_modules\/@ffmpeg-installer\/.+\/ffmpeg$/);
    expect(npm.ffprobe).toMatch(/node_modules\/@ffprobe-installer\/.+\/ffprobe$/);
    expect(warnings).toEqual([expect.stringContaining('not found on PATH')]);
    expect(await resolveBinaries({ env: { PATH: '' }, logger })).toBe(await resolveBinaries({ env: { PATH: '' } })); // cached
    expect(warnings).toHaveLength(1);

    // The same argv layout runs on these older builds (ffmpeg 4.1, ffprobe 6.1).
    expect((await probeInput('in/0', { workDir: work.path, ffprobePath: npm.ffprobe })).format).toBe('mov');
    const run = await makeWorkDir();
    try {
      await copyFile(join(work.path, 'in', '0'), join(run.path, 'in', '0'));
      const seen: number[] = [];
      const result = await runFfmpeg({
        workDir: run.path,
        inputs: [{ path: 'in/0', demuxer: 'mov', args: [] }],
        outputs: [{ args: ['-vn', '-c:a', 'pcm_s16le'], fileName: 'a.wav', kind: 'file' }],
        timeoutMs: 20_000,
        ffmpegPath: npm.ffmpeg,
        durationSec: 2,
        onProgress: (p) => seen.push(p.percent ?? -1),
      });
      expect(result.outputs.map((o) => o.fileName)).toEqual(['a.wav']);
      expect(seen[seen.length - 1]).toBe(100);
    } finally {
      await run.remove();
    }
  });
});
