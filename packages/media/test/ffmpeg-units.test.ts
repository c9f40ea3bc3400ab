// Pure parts of the execution layer: argv layout, allow-list, progress parsing, error details.
import {
  allowedDemuxer,
  createProgressParser,
  ffmpegArgv,
  ffprobeArgv,
  formatBytes,
  sanitizeDetail,
  type FfmpegProgress,
} from '../src/ffmpeg/index.js';
import { PROBE_FORMAT_WHITELIST } from '../src/ffmpeg/demuxers.js';
import { wrapperArgv } from '../src/ffmpeg/sandbox.js';
import { limitsFor } from '../src/ffmpeg/limits.js';

describe('demuxer allow-list', () => {
  it('accepts media containers by -f name, full name or alias', () => {
    expect(allowedDemuxer('mov')?.names).toBe('mov,mp4,m4a,3gp,3g2,mj2');
    expect(allowedDemuxer('mov,mp4,m4a,3gp,3g2,mj2')?.name).toBe('mov');
    expect(allowedDemuxer('webm')?.name).toBe('matroska');
    expect(allowedDemuxer('png_pipe')?.name).toBe('png_pipe');
  });

  it('refuses playlists, network formats, text art and devices', () => {
    for (const name of ['hls', 'hls,applehttp', 'dash', 'sdp', 'rtp', 'rtsp', 'tty', 'bin', 'xbin', 'v4l2', 'x11grab', 'imf']) {
      expect(allowedDemuxer(name)).toBeUndefined();
    }
  });

  it('never lets detection choose what only the service sets up (concat lists, image sequences, generated inputs)', () => {
    expect(allowedDemuxer('concat')?.pinned).toEqual(['-safe', '1']);
    expect(PROBE_FORMAT_WHITELIST.split(',')).not.toContain('concat');
    expect(PROBE_FORMAT_WHITELIST.split(',')).not.toContain('image2');
    expect(PROBE_FORMAT_WHITELIST.split(',')).not.toContain('lavfi');
    expect(PROBE_FORMAT_WHITELIST.split(',')).toEqual(expect.arrayContaining(['mov', 'mp4', 'matroska', 'wav', 'png_pipe', 'srt', 'mxf']));
  });
});

describe('argv', () => {
  it('fixes the global flags, the per-file whitelists and file: URLs', () => {
    const argv = ffmpegArgv({
      inputs: [
        { path: 'in/0', demuxer: 'mov', args: ['-ss', '2'] },
        { path: 'in/1', demuxer: 'wav', args: [] },
        { path: 'in/2/img_%03d.png', demuxer: 'image2', built: 'image2', service: ['-start_number', '4'], args: ['-framerate', '10'] },
      ],
      filterComplex: '[0:v][2:v]overlay[v]',
      outputs: [
        { args: ['-map', '[v]', '-c:v', 'libx264'], fileName: 'a.mp4' },
        { args: ['-vn'], fileName: '-odd:name.mp3' },
      ],
    });
    const pins = allowedDemuxer('mov')!.pinned;
    expect(pins).toEqual(expect.arrayContaining(['-enable_drefs', '0', '-use_absolute_path', '0']));
    expect(argv).toEqual([
      '-nostdin',
      '-hide_banner',
      '-nostats',
      '-loglevel',
      'error',
      '-progress',
      'pipe:1',
      '-n',
      '-protocol_whitelist',
      'file',
      '-format_whitelist',
      'mov,mp4,m4a,3gp,3g2,mj2',
      '-f',
      'mov',
      '-ss',
      '2',
      ...pins,
      '-i',
      'file:in/0',
      '-protocol_whitelist',
      'file',
      '-format_whitelist',
      'wav',
      '-f',
      'wav',
      '-i',
      'file:in/1',
      '-protocol_whitelist',
      'file',
      '-format_whitelist',
      'image2',
      '-f',
      'image2',
      '-start_number',
      '4',
      '-framerate',
      '10',
      ...allowedDemuxer('image2')!.pinned,
      '-i',
      'file:in/2/img_%03d.png',
      '-filter_complex',
      '[0:v][2:v]overlay[v]',
      '-protocol_whitelist',
      'file',
      '-map',
      '[v]',
      '-c:v',
      'libx264',
      'file:out/a.mp4',
      '-protocol_whitelist',
      'file',
      '-vn',
      'file:out/-odd:name.mp3',
    ]);
  });

  it('logs at info level with levels shown when the task has analysis reports', () => {
    const argv = ffmpegArgv({
      inputs: [{ path: 'in/0', demuxer: 'wav', args: [] }],
      outputs: [{ args: ['-af', 'volumedetect', '-f', 'null'], fileName: 'v.json' }],
      reports: true,
    });
    expect(argv.slice(0, 8)).toEqual(['-nostdin', '-hide_banner', '-nostats', '-loglevel', 'level+info', '-progress', 'pipe:1', '-n']);
  });

  it('puts ffprobe options before the input', () => {
    expect(ffprobeArgv({ path: 'in/0', demuxer: 'matroska' }, ['-show_entries', 'format=duration'])).toEqual([
      '-hide_banner',
      '-loglevel',
      'error',
      '-protocol_whitelist',
      'file',
      '-format_whitelist',
      'matroska,webm',
      '-f',
      'matroska',
      '-print_format',
      'json',
      '-show_entries',
      'format=duration',
      '-i',
      'file:in/0',
    ]);
  });

  it('refuses unlisted demuxers, escaping input paths and output names', () => {
    const outputs = [{ args: [], fileName: 'a.mp4' }];
    // concat and image2 open other files: only for what staging built itself.
    expect(() => ffmpegArgv({ inputs: [{ path: 'in/0', demuxer: 'concat', args: [] }], outputs })).toThrow(
      /the concat format is not accepted/,
    );
    expect(() => ffmpegArgv({ inputs: [{ path: 'in/0', demuxer: 'image2', args: [] }], outputs })).toThrow(
      /the image2 format is not accepted/,
    );
    expect(() => ffmpegArgv({ inputs: [{ path: 'in/0', demuxer: 'hls', args: [] }], outputs })).toThrow(/not a supported media file/);
    for (const path of ['/etc/passwd', '../x', 'in/../../x', '', 'in//0']) {
      expect(() => ffmpegArgv({ inputs: [{ path, demuxer: 'mov', args: [] }], outputs })).toThrow(TypeError);
    }
    for (const fileName of ['', '.', '..', 'a/b.mp4', '..\\x', 'a\nb']) {
      expect(() => ffmpegArgv({ inputs: [{ path: 'in/0', demuxer: 'mov', args: [] }], outputs: [{ args: [], fileName }] })).toThrow(
        /is not allowed/,
      );
    }
  });

  it('wraps the tool in setpriv and prlimit when present', async () => {
    const argv = await wrapperArgv({ bin: '/usr/bin/ffmpeg', args: ['-version'], limits: limitsFor(60_000, 5e9) });
    const tool = argv.indexOf('/usr/bin/ffmpeg');
    expect(argv.slice(tool)).toEqual(['/usr/bin/ffmpeg', '-version']);
    if (argv.some((a) => a.endsWith('/prlimit'))) {
      expect(argv).toEqual(expect.arrayContaining(['--as=17179869184', '--fsize=5000000000', '--nofile=512', '--core=0']));
      expect(argv.find((a) => a.startsWith('--cpu='))).toMatch(/^--cpu=\d+$/);
      expect(argv.some((a) => a.startsWith('--nproc'))).toBe(false);
    }
  });
});

describe('progress parser', () => {
  const block = (us: number, extra = '', state = 'continue') =>
    `frame=${us / 40000}\nfps=25.0\nstream_0_0_q=28.0\nbitrate= 100.0kbits/s\ntotal_size=1000\nout_time_us=${us}\n` +
    `out_time_ms=${us}\nout_time=00:00:0${us / 1e6}\ndup_frames=0\ndrop_frames=0\nspeed=2.00x\n${extra}progress=${state}\n`;

  it('reports time, fps, speed, frame, percent and ETA, throttled, with a final 100%', () => {
    let clock = 0;
    const seen: FfmpegProgress[] = [];
    const feed = createProgressParser({ durationSec: 4, intervalMs: 1000, now: () => clock, onProgress: (p) => seen.push(p) });
    feed(block(1_000_000));
    clock = 500;
    feed(block(1_500_000)); // dropped: within the interval
    clock = 1200;
    const text = block(2_000_000);
    feed(text.slice(0, 17)); // split across chunks
    feed(text.slice(17));
    feed(block(4_000_000, '', 'end'));
    expect(seen).toEqual([
      { outTimeSec: 1, fps: 25, speed: 2, frame: 25, percent: 25, etaSec: 1.5, done: false },
      { outTimeSec: 2, fps: 25, speed: 2, frame: 50, percent: 50, etaSec: 1, done: false },
      { outTimeSec: 4, fps: 25, speed: 2, frame: 100, percent: 100, etaSec: 0, done: true },
    ]);
  });

  it('copes with N/A, negative times, old builds (out_time_ms only) and unknown duration', () => {
    const seen: FfmpegProgress[] = [];
    const feed = createProgressParser({ intervalMs: 0, onProgress: (p) => seen.push(p) });
    feed('fps=N/A\nout_time_us=-577014\nspeed=N/A\nprogress=continue\n');
    feed('out_time_ms=2500000\nspeed=1.5x\nprogress=continue\n');
    feed('out_time=00:01:02.500000\nprogress=end\n');
    expect(seen).toEqual([
      { outTimeSec: 0, fps: 0, speed: 0, frame: 0, done: false },
      { outTimeSec: 2.5, fps: 0, speed: 1.5, frame: 0, done: false },
      { outTimeSec: 62.5, fps: 0, speed: 0, frame: 0, done: true },
    ]);
  });
});

describe('error detail', () => {
  const workDir = '/var/lib/media/jobs/job_abc';

  it('keeps the last meaningful lines, without work dir, pointers or host paths', () => {
    const detail = sanitizeDetail(
      [
        `Input #0, mov, from '${workDir}/in/0':`,
        "x264 [error]: invalid preset 'nope'",
        '[libx264 @ 0x558dc1785780] Error setting preset/tune nope/(null).',
        '[libx264 @ 0x558dc1785780] Error setting preset/tune nope/(null).',
        `Error initializing output stream 0:0 -- writing file:${workDir}/out/a.mp4 and /etc/ssl/private/key`,
        'Conversion failed!',
      ],
      { workDirs: [workDir], fallback: 'none' },
    );
    expect(detail).toBe(
      "x264 [error]: invalid preset 'nope'; [libx264] Error setting preset/tune nope/(null).; " +
        'Error initializing output stream 0:0 -- writing out/a.mp4 and <path>',
    );
    expect(detail).not.toContain(workDir);
  });

  it('drops lines from text parsers and binary noise, caps the length', () => {
    const passwdLine = 'root:x:0:0:root:/root:/bin/bash';
    const detail = sanitizeDetail(
      [
        `[concat @ 0x1] Line 1: unknown keyword '${passwdLine}'`,
        `[hls,applehttp @ 0x2] Skip ('${passwdLine}')`,
        '\u0000\u0001\u0002\u0003\u0004abc\u0005\u0006\u0007\u0008',
        'in/0: Invalid data found when processing input',
      ],
      { fallback: 'none' },
    );
    expect(detail).toBe('in/0: Invalid data found when processing input');
    expect(sanitizeDetail(['x'.repeat(1000)], { fallback: '' })).toHaveLength(300);
    expect(sanitizeDetail([], { fallback: 'ffmpeg gave no error message' })).toBe('ffmpeg gave no error message');
  });

  it('formats limits the way the spec writes them', () => {
    expect(formatBytes(5e9)).toBe('5 GB');
    expect(formatBytes(50_000)).toBe('50 KB');
    expect(formatBytes(1_500_000)).toBe('1.5 MB');
  });
});
