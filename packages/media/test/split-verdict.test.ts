// The planner's decision whether a run may be split at the input's keyframes (issue 42): real
// tasks planned with planTask, as Jobs plans them, and the verdict with its reason.
import { join } from 'node:path';
import { execa } from 'execa';
import { tempDir } from '@media/testkit';
import {
  CATALOGUE,
  entryVerdict,
  FRAME_LOCAL_FILTERS,
  frameLocalProblem,
  parseFilterArgs,
  parseFilterGraph,
  splitVerdict,
  type SplitVerdict,
} from '../src/policy/index.js';
import { body, DIR, plan, single, type InputSpec, type OutputSpec } from './policy-fixtures.js';

const IN = `${DIR}/in.mp4`;

/** The verdict for a task with one output (options, file name) and the given inputs. */
function verdict(options: string[], file = 'out.mp4', inputs: InputSpec[] = [IN]): SplitVerdict {
  return splitVerdict(plan(single(options, file, inputs)));
}
const verdictOf = (outputs: OutputSpec[], inputs: InputSpec[] = [IN], extra: Record<string, unknown> = {}) =>
  splitVerdict(plan(body(outputs, inputs, extra)));

/** The reason a task is not split; fails the test if it is split. */
function reason(v: SplitVerdict): string {
  if (v.split) throw new Error('expected the run not to be split, but it is');
  return v.reason;
}

const SPLIT_INPUT_0: SplitVerdict = { split: true, input: 0 };

describe('split: one output re-encoding the video of one input', () => {
  test.each([
    ['x264 with CRF in mp4', ['-c:v', 'libx264', '-crf', '23', '-preset', 'fast', '-c:a', 'aac'], 'out.mp4'],
    ['the mp4 default encoder (libx264)', [], 'out.mp4'],
    ['x265 in mov', ['-c:v', 'libx265', '-crf', '28'], 'out.mov'],
    ['the webm default encoder (libvpx-vp9)', ['-b:v', '0', '-crf', '32'], 'out.webm'],
    ['a codec name that selects a listed encoder (-c:v h264)', ['-c:v', 'h264'], 'out.mkv'],
    ['AV1 with libaom', ['-c:v', 'libaom-av1', '-crf', '30', '-cpu-used', '8'], 'out.mkv'],
    ['the MPEG-TS default encoder (mpeg2video)', ['-q:v', '4'], 'out.ts'],
    ['a constant bitrate with VBV', ['-c:v', 'libx264', '-b:v', '2M', '-maxrate', '2M', '-bufsize', '4M'], 'out.mp4'],
    ['audio copied', ['-c:v', 'libx264', '-c:a', 'copy'], 'out.mkv'],
    ['audio filters with memory (loudnorm, atempo)', ['-c:v', 'libx264', '-af', 'loudnorm,atempo=1.25'], 'out.mp4'],
    ['keyframes kept where the source has them', ['-force_key_frames', 'source'], 'out.mp4'],
    ['x264 parameters without passes', ['-x264-params', 'keyint=120:min-keyint=24'], 'out.mp4'],
  ])('%s', (_what, options, file) => {
    expect(verdict(options, file)).toEqual(SPLIT_INPUT_0);
  });

  test('an HLS output and a DASH output', () => {
    expect(verdict(['-c:v', 'libx264', '-crf', '23', '-hls_time', '4', '-hls_playlist_type', 'vod'], 'out.m3u8')).toEqual(SPLIT_INPUT_0);
    expect(verdict(['-c:v', 'libx264', '-seg_duration', '4'], 'out.mpd')).toEqual(SPLIT_INPUT_0);
  });

  test('a -vf chain of several frame-local filters', () => {
    const vf = 'scale=640:-2,crop=iw-16:ih-16,pad=iw+16:ih+16:8:8,eq=contrast=1.1:saturation=1.2,hflip,unsharp,format=yuv420p';
    expect(verdict(['-vf', vf, '-c:v', 'libx264'])).toEqual(SPLIT_INPUT_0);
    expect(verdict(['-filter:v:0', 'transpose=1,drawbox=x=10:y=10:w=50:h=50:color=red'])).toEqual(SPLIT_INPUT_0);
  });

  test('drawtext with fixed text, frame metadata, or expansion off', () => {
    expect(verdict(['-vf', "drawtext=text='Hello world':x=(w-text_w)/2:y=h-40:fontsize=24"])).toEqual(SPLIT_INPUT_0);
    expect(verdict(['-vf', "drawtext=text='%{pict_type} %{eif\\:2*3\\:d}'"])).toEqual(SPLIT_INPUT_0);
    expect(verdict(['-vf', "drawtext=text='%{pts}':expansion=none"])).toEqual(SPLIT_INPUT_0);
  });

  test('a side file (a font) next to the one media input', () => {
    expect(verdict(['-vf', "drawtext=fontfile=font.ttf:text='Title'"], 'out.mp4', [IN, `${DIR}/font.ttf`])).toEqual(SPLIT_INPUT_0);
  });

  test('stream selection by type: video and audio, or everything but the subtitles', () => {
    expect(verdict(['-map', '0:v:0', '-map', '0:a?', '-c:v', 'libx264'])).toEqual(SPLIT_INPUT_0);
    expect(verdict(['-map', '0', '-map', '-0:s', '-c:v', 'libx264'], 'out.mkv')).toEqual(SPLIT_INPUT_0);
  });

  test('input options that change nothing about the frames read', () => {
    expect(verdict(['-c:v', 'libx264'], 'out.mp4', [{ file_path: IN, options: ['-probesize', '5000000', '-c:v', 'h264'] }])).toEqual(
      SPLIT_INPUT_0,
    );
  });
});

describe('not split: outputs', () => {
  test('two outputs', () => {
    expect(reason(verdictOf([{ file: 'a.mp4' }, { file: 'b.mp4' }]))).toBe('the task has 2 outputs; only a task with one output is split');
  });

  test('numbered images', () => {
    expect(reason(verdict(['-vf', 'fps=1'], 'thumb_%03d.png'))).toBe(
      'the output is numbered images (one file per frame), which are not split',
    );
  });

  test('an analysis report', () => {
    expect(reason(verdict(['-f', 'null', '-vf', 'signalstats'], 'report.json'))).toBe(
      'the output is an analysis report (-f null), which is not split',
    );
  });

  test('a muxer the parts are not joined into', () => {
    expect(reason(verdict(['-c:v', 'mpeg4'], 'out.avi'))).toMatch(/^the avi muxer is not one the parts are joined into \(mp4, mov, /);
  });
});

describe('not split: inputs and filter_complex', () => {
  test('two media inputs', () => {
    expect(reason(verdict([], 'out.mp4', [IN, `${DIR}/b.mp4`]))).toBe('the task has 2 media inputs; only a task with one is split');
  });

  test('an image sequence or a concat list', () => {
    expect(reason(verdict([], 'out.mp4', [`${DIR}/img_%03d.png`]))).toBe('input 0 is an image sequence, which is not split');
    expect(reason(verdict([], 'out.mp4', [{ file_path: `${DIR}/list.txt`, options: ['-f', 'concat'] }]))).toBe(
      'input 0 is a concat list, which is not split',
    );
  });

  test("the task's filter_complex, or one in the output's options", () => {
    expect(reason(verdictOf([{ file: 'out.mp4', maps: ['[v]'] }], [IN], { filter_complex: '[0:v]hflip[v]' }))).toBe(
      'filter_complex is not split yet',
    );
    expect(reason(verdict(['-filter_complex', '[0:v]hflip[v]', '-map', '[v]']))).toBe('filter_complex is not split yet');
  });

  test.each([
    [['-ss', '10'], 'the input option -ss seeks into the input'],
    [['-t', '30'], 'the input option -t bounds how much of the input is read'],
    [['-itsoffset', '2'], "the input option -itsoffset shifts the input's timestamps"],
    [['-stream_loop', '2'], 'the input option -stream_loop loops the input'],
    [['-r', '30'], "the input option -r forces the input's frame rate"],
    [['-re'], 'the input option -re paces the reading'],
    [['-noaccurate_seek'], 'the input option -noaccurate_seek makes seeking inexact'],
    [['-fflags', '+genpts'], 'the input option -fflags changes how packets and timestamps are read'],
    [['-copyts'], 'the option -copyts keeps the input timestamps'],
  ])('input options %j', (options, expected) => {
    expect(reason(verdict(['-c:v', 'libx264'], 'out.mp4', [{ file_path: IN, options }]))).toBe(expected);
  });
});

describe('not split: the video', () => {
  test('video copied, or no video', () => {
    expect(reason(verdict(['-c:v', 'copy', '-c:a', 'aac']))).toBe('the output copies the video (-c:v copy), so there is nothing to gain');
    expect(reason(verdict(['-c', 'copy'], 'out.mkv'))).toBe('the output copies the video (-c:v copy), so there is nothing to gain');
    expect(reason(verdict(['-vn', '-c:a', 'aac'], 'out.mp4'))).toBe('the output has no video (-vn), so there is nothing to split');
    expect(reason(verdict(['-map', '0:a'], 'out.mp4'))).toBe("the output's -map selects no video, so there is nothing to split");
  });

  test('an encoder whose parts are not joined', () => {
    expect(reason(verdict(['-c:v', 'mjpeg'], 'out.mov'))).toMatch(/^the video encoder mjpeg is not one whose parts are joined \(libx264, /);
  });

  test('streams named by index, or selected twice, or beyond video and audio', () => {
    expect(reason(verdict(['-c:0', 'libx264']))).toBe(
      'the output option -c:0 names streams by index or property; name them by type (-c:v) to split',
    );
    expect(reason(verdict(['-map', '0:v', '-map', '0:v']))).toBe('the output takes the video 2 times (-map)');
    expect(reason(verdict(['-map', '0:v', '-map', '0:s'], 'out.mkv'))).toMatch(
      /^the output's -map 0:s selects streams the split run does not carry/,
    );
    expect(reason(verdict(['-map', '0:1']))).toMatch(/^the output's -map 0:1 selects streams the split run does not carry/);
  });

  test('two-pass encoding', () => {
    expect(reason(verdict(['-c:v', 'libx264', '-b:v', '1M', '-x264-params', 'pass=1']))).toBe(
      'two-pass encoding (pass= in -x264-params) needs a first pass over the whole video',
    );
    expect(reason(verdict(['-c:v', 'libx264', '-b:v', '1M', '-flags:v', '+pass2']))).toBe(
      'two-pass encoding (-flags:v +pass2) needs a first pass over the whole video',
    );
    expect(reason(verdict(['-c:v', 'libsvtav1', '-svtav1-params', 'passes=2'], 'out.mkv'))).toBe(
      'two-pass encoding (passes= in -svtav1-params) needs a first pass over the whole video',
    );
  });

  test.each([
    [['-t', '60'], "the output option -t bounds the output's duration"],
    [['-to', '60'], "the output option -to bounds the output's duration"],
    [['-ss', '5'], 'the output option -ss starts the output later'],
    [['-r', '24'], 'the output option -r changes the frame rate'],
    [['-frames:v', '100'], 'the output option -frames:v bounds the number of frames'],
    [['-vframes', '100'], 'the output option -vframes bounds the number of frames'],
    [['-shortest'], 'the output option -shortest ends the output with its shortest stream'],
    [['-fps_mode', 'cfr'], 'the output option -fps_mode drops or duplicates frames'],
    [['-vsync', 'cfr'], 'the option -vsync drops or duplicates frames'],
    [
      ['-force_key_frames', 'expr:gte(t,n_forced*2)'],
      "the output option -force_key_frames expr:gte(t,n_forced*2) places keyframes by the output's time, which each part counts from its own start",
    ],
    [['-bsf:v', 'h264_mp4toannexb'], 'the output option -bsf:v applies a bitstream filter to the video'],
  ])('output options %j', (options, expected) => {
    expect(reason(verdict(['-c:v', 'libx264', ...options]))).toBe(expected);
  });
});

describe('not split: video filters that are not frame-local', () => {
  test.each([
    ['fade=in:0:30', 'fade'],
    ['setpts=0.5*PTS', 'setpts'],
    ["select='eq(pict_type,I)'", 'select'],
    ['yadif', 'yadif'],
    ['hqdn3d', 'hqdn3d'],
    ['minterpolate=fps=60', 'minterpolate'],
    ['fps=30', 'fps'],
    ['deshake', 'deshake'],
    ['tmix=frames=3', 'tmix'],
  ])('%s', (vf, name) => {
    expect(reason(verdict(['-vf', `scale=640:-2,${vf}`]))).toBe(
      `the video filter ${name} is not frame-local (it may read other frames or carry state across them)`,
    );
  });

  test('a frame-local filter whose options read the time or number of the frame', () => {
    expect(reason(verdict(['-vf', "crop=320:240:x='t*10':y=0"]))).toBe("the video filter crop reads the frame's time or number (t in x=)");
    expect(reason(verdict(['-vf', "hue=h='n*3'"]))).toBe("the video filter hue reads the frame's time or number (n in h=)");
    expect(reason(verdict(['-vf', "hflip=enable='between(t,1,5)'"]))).toBe(
      "the video filter hflip reads the frame's time or number (t in enable=)",
    );
    expect(reason(verdict(['-vf', "geq=lum='random(1)*255':cb=128:cr=128"]))).toBe(
      "the video filter geq reads the frame's time or number (random in lum=)",
    );
  });

  test('drawtext with time expressions', () => {
    expect(reason(verdict(['-vf', "drawtext=text='%{pts\\:hms}'"]))).toBe(
      "the video filter drawtext draws the frame's time or number (%{pts:hms} in text)",
    );
    expect(reason(verdict(['-vf', "drawtext=text='frame %{n}'"]))).toBe(
      "the video filter drawtext draws the frame's time or number (%{n} in text)",
    );
    expect(reason(verdict(['-vf', "drawtext=text='%{eif\\:t*2\\:d}'"]))).toBe(
      "the video filter drawtext draws the frame's time or number (%{eif:t*2:d} in text)",
    );
    expect(reason(verdict(['-vf', "drawtext=text='%{localtime}'"]))).toBe(
      "the video filter drawtext draws the frame's time or number (%{localtime} in text)",
    );
    expect(reason(verdict(['-vf', "drawtext=text='Title':x='w-t*50'"]))).toBe(
      "the video filter drawtext reads the frame's time or number (t in x=)",
    );
    expect(reason(verdict(['-vf', "drawtext=timecode='00\\:00\\:00\\:00':rate=25"]))).toBe(
      'the video filter drawtext draws a running timecode (timecode=)',
    );
    expect(reason(verdict(['-vf', 'drawtext=textfile=notes.txt'], 'out.mp4', [IN, `${DIR}/notes.txt`]))).toMatch(
      /^the video filter drawtext reads its text from a file/,
    );
  });

  test('dithering that carries its error or randomness from frame to frame', () => {
    expect(reason(verdict(['-vf', 'format=pal8,format=yuv420p']))).toBe(
      'the video filter format converts to pal8, whose error-diffusion dithering runs on across frames',
    );
    expect(reason(verdict(['-vf', 'zscale=w=640:h=360:dither=error_diffusion']))).toBe(
      'the video filter zscale dithers with state across frames (dither=error_diffusion)',
    );
    expect(reason(verdict(['-vf', 'colorspace=all=bt709:dither=fsb']))).toBe(
      'the video filter colorspace dithers with state across frames (dither=fsb)',
    );
    expect(reason(verdict(['-vf', 'noformat=yuv444p']))).toBe(
      'the video filter noformat is not frame-local (it may read other frames or carry state across them)',
    );
    expect(verdict(['-vf', 'zscale=w=640:h=360:dither=ordered,format=yuv420p'])).toEqual(SPLIT_INPUT_0);
    expect(reason(verdict(['-sws_dither', 'ed']))).toBe('the output option -sws_dither ed dithers with state across frames');
    expect(verdict(['-sws_dither', 'bayer'])).toEqual(SPLIT_INPUT_0);
  });

  test('an escaped percent sign is not an expansion', () => {
    expect(verdict(['-vf', "drawtext=text='100\\\\%{pts}'"])).toEqual(SPLIT_INPUT_0);
  });
});

test('every frame-local filter is an allowed filter of the build with one video input and one video output', () => {
  const oneVideo = [{ name: 'default', type: 'video' }];
  const wrong = [...FRAME_LOCAL_FILTERS].filter((name) => {
    const f = Object.hasOwn(CATALOGUE.filters, name) ? CATALOGUE.filters[name]! : undefined;
    return (
      f === undefined ||
      entryVerdict('filter', name)?.verdict !== 'allow' ||
      JSON.stringify(f.inputs) !== JSON.stringify(oneVideo) ||
      JSON.stringify(f.outputs) !== JSON.stringify(oneVideo)
    );
  });
  expect(wrong).toEqual([]);
});

/**
 * One use of each frame-local filter, in chains run separately (a long chain of colour changes
 * would flatten the picture until every frame looked alike); sizes fit a 96x72 source.
 */
const FRAME_LOCAL_SAMPLES: ReadonlyArray<ReadonlyArray<[name: string, instance: string]>> = [
  [
    ['scale', 'scale=128:-2'],
    ['crop', 'crop=100:80'],
    ['pad', 'pad=120:100:10:10'],
    ['transpose', 'transpose=1'],
    ['hflip', 'hflip'],
    ['vflip', 'vflip'],
    ['rotate', 'rotate=0.3'],
    ['setsar', 'setsar=1'],
    ['setdar', 'setdar=16/9'],
    ['fillborders', 'fillborders=left=4'],
    ['setparams', 'setparams=range=tv'],
    ['setfield', 'setfield=tff'],
    ['colorspace', 'colorspace=all=bt709:iall=bt601-6-625'],
    ['colormatrix', 'colormatrix=bt601:bt709'],
    ['zscale', 'zscale=w=100:h=80'],
    ['null', 'null'],
    ['copy', 'copy'],
    ['format', 'format=gray'],
  ],
  [
    ['eq', 'eq=contrast=1.2:saturation=1.3'],
    ['hue', 'hue=h=30'],
    ['huesaturation', 'huesaturation=hue=20'],
    ['colorchannelmixer', 'colorchannelmixer=rr=0.5'],
    ['colorbalance', 'colorbalance=rs=0.3'],
    ['colorlevels', 'colorlevels=rimin=0.1'],
    ['colorcontrast', 'colorcontrast=rc=0.5'],
    ['colorcorrect', 'colorcorrect=rl=0.1'],
    ['colorize', 'colorize=hue=100'],
    ['colortemperature', 'colortemperature=temperature=4000'],
    ['colorkey', 'colorkey=black'],
    ['chromakey', 'chromakey=green'],
    ['curves', 'curves=preset=vintage'],
  ],
  [
    ['lut', 'lut=y=negval'],
    ['lutrgb', 'lutrgb=r=negval'],
    ['lutyuv', 'lutyuv=y=val/2'],
    ['lut1d', 'lut1d'],
    ['lut3d', 'lut3d'],
    ['negate', 'negate'],
    ['vibrance', 'vibrance=intensity=0.5'],
    ['selectivecolor', 'selectivecolor=reds=0.2 0 0 0'],
    ['monochrome', 'monochrome'],
    ['exposure', 'exposure=exposure=0.3'],
    ['tonemap', 'tonemap=hable'],
  ],
  [
    ['unsharp', 'unsharp'],
    ['boxblur', 'boxblur=2'],
    ['gblur', 'gblur=sigma=2'],
    ['avgblur', 'avgblur=sizeX=3'],
    ['smartblur', 'smartblur=lr=2'],
    ['cas', 'cas'],
    ['convolution', "convolution='0 -1 0 -1 5 -1 0 -1 0'"],
    ['median', 'median'],
    ['nlmeans', 'nlmeans'],
    ['removegrain', 'removegrain=1'],
  ],
  [
    ['edgedetect', 'edgedetect'],
    ['sobel', 'sobel'],
    ['prewitt', 'prewitt'],
  ],
  [
    ['drawbox', 'drawbox=10:10:50:50:red'],
    ['drawgrid', 'drawgrid=w=20:h=20'],
    ['drawtext', "drawtext=text='Hello %{pict_type}':fontcolor=white"],
    ['delogo', 'delogo=x=10:y=10:w=30:h=30'],
    ['geq', "geq=lum='lum(X,Y)':cb='cb(X,Y)':cr='cr(X,Y)'"],
    ['chromashift', 'chromashift=cbh=4'],
    ['rgbashift', 'rgbashift=rh=4'],
  ],
];

describe('frame-local filters, checked with ffmpeg', () => {
  const chains = FRAME_LOCAL_SAMPLES.map((group) => group.map(([, instance]) => instance).join(','));

  test('each listed filter has a sample here, and the verdict takes each sample as frame-local', () => {
    expect(
      FRAME_LOCAL_SAMPLES.flat()
        .map(([name]) => name)
        .sort(),
    ).toEqual([...FRAME_LOCAL_FILTERS].sort());
    const problems = chains.flatMap((chain) =>
      parseFilterGraph(chain).filters.flatMap((f) => frameLocalProblem(f.name, parseFilterArgs(f.args ?? '')) ?? []),
    );
    expect(problems).toEqual([]);
  });

  // An all-intra source, so that a run from 0.5 s reads exactly the frames a whole run does from
  // there. -noaccurate_seek, as a part's encode must seek: with accurate seeking ffmpeg 5.1 puts a
  // trim filter in front of the graph, which moves the automatic pixel format conversion ahead of
  // the first filters and changes the rounding (lut=y=negval,lutrgb=r=negval differs then).
  // A filter with memory (fade, counting from its first frame) makes different frames, which
  // shows the comparison can fail.
  test('each chain of listed filters makes the same frames from a part as from the whole run', async () => {
    const dir = await tempDir('split-verdict-');
    try {
      const source = join(dir.path, 'intra.mkv');
      await execa('ffmpeg', [
        '-nostdin',
        '-v',
        'error',
        '-f',
        'lavfi',
        '-i',
        'testsrc2=s=96x72:r=10:d=1',
        '-pix_fmt',
        'yuv420p',
        '-c:v',
        'ffv1',
        '-g',
        '1',
        source,
      ]);
      /** The hashes of the pictures of the last 5 frames (the part from 0.5 s is 5 frames). */
      const pictures = async (vf: string, seek: string[]) => {
        const { stdout } = await execa('ffmpeg', [
          '-nostdin',
          '-v',
          'error',
          ...seek,
          '-i',
          source,
          '-vf',
          vf,
          '-f',
          'framemd5',
          '-hash',
          'md5',
          '-',
        ]);
        const hashes = stdout
          .split('\n')
          .filter((l) => l !== '' && !l.startsWith('#'))
          .map((l) => l.split(',').pop()!.trim());
        return hashes.slice(-5);
      };
      const part = ['-noaccurate_seek', '-ss', '0.5'];
      for (const chain of chains) {
        const fromPart = await pictures(chain, part);
        expect({ chain, distinct: new Set(fromPart).size }).toEqual({ chain, distinct: 5 });
        expect({ chain, pictures: fromPart }).toEqual({ chain, pictures: await pictures(chain, []) });
      }
      const faded = `${chains[0]},fade=in:0:8`;
      expect(await pictures(faded, part)).not.toEqual(await pictures(faded, []));
    } finally {
      await dir.remove();
    }
  }, 60_000);
});
