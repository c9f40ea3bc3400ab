// Everyday FFmpeg recipes, each as a user sends it to POST /ffmpeg/process, with the public page
// it comes from and what its outputs must be. '{dir}' stands for the directory the fixtures
// (fixtures.ts) were uploaded to. plain-ffmpeg.test.ts runs every recipe with plain ffmpeg to prove
// the expectations; recipes-api.test.ts runs them through the API.

export interface TaskInput {
  file_path: string;
  options?: string[];
}
export interface TaskOutput {
  file: string;
  options?: string[];
  maps?: string[];
}
export interface Task {
  inputs: TaskInput[];
  outputs: TaskOutput[];
  filter_complex?: string;
}

export interface StreamExpect {
  type: 'video' | 'audio' | 'subtitle' | 'attachment';
  codec?: string;
  width?: number;
  height?: number;
  /** Frames counted by ffprobe: exactly, or a range. */
  frames?: number | [number, number];
}

export interface OutputExpect {
  /** The output's file name, or with `count` a numbered pattern (`frame_%03d.jpg`) or `names`. */
  file: string;
  /** How many files the pattern (or `names`) gives: exactly, or a range. */
  count?: number | [number, number];
  /** Files that belong to this output, where `file` is not a numbered pattern (DASH segments). */
  names?: RegExp;
  /** One of ffprobe's format names for the container. */
  format?: string;
  /** Every stream, in order. */
  streams?: StreamExpect[];
  /** Seconds, from the container. */
  duration?: [number, number];
  /** A text output (playlist, subtitles, report) matches each. */
  text?: RegExp[];
  /** A JSON output (analysis report): the problems found in it. Service-only: plain ffmpeg writes no report. */
  json?: (report: Report) => string[];
}

/** The service's analysis report (-f null outputs named .json). */
export interface Report {
  filters: Array<{ filter: string; lines: string[]; json?: Record<string, unknown> }>;
}

export type Category =
  | 'transcode'
  | 'trim'
  | 'thumbnail'
  | 'sprite'
  | 'gif'
  | 'overlay'
  | 'text'
  | 'subtitles'
  | 'concat'
  | 'audio'
  | 'still-image'
  | 'sequence'
  | 'speed'
  | 'hls'
  | 'segment'
  | 'analysis'
  | 'ffmpeg-api.com';

export interface Recipe {
  id: string;
  /** The public page the recipe is taken from. */
  source: string;
  category: Category;
  task: Task;
  expect: OutputExpect[];
}

const WIKI = 'https://trac.ffmpeg.org/wiki/';
const FILTERS = 'https://ffmpeg.org/ffmpeg-filters.html#';
const FORMATS = 'https://ffmpeg.org/ffmpeg-formats.html#';
const FFMPEG_DOC = 'https://ffmpeg.org/ffmpeg.html#';
const FFMPEG_API = 'https://ffmpeg-api.com/docs/processing';
const RENDI = 'https://github.com/rendi-api/ffmpeg-cheatsheet';

const input = (name: string, options?: string[]): TaskInput => ({ file_path: `{dir}/${name}`, ...(options ? { options } : {}) });
const output = (file: string, options?: string[], maps?: string[]): TaskOutput => ({
  file,
  ...(options ? { options } : {}),
  ...(maps ? { maps } : {}),
});
const video = (codec: string, width?: number, height?: number, frames?: StreamExpect['frames']): StreamExpect => ({
  type: 'video',
  codec,
  ...(width ? { width } : {}),
  ...(height ? { height } : {}),
  ...(frames !== undefined ? { frames } : {}),
});
const audio = (codec: string): StreamExpect => ({ type: 'audio', codec });
const filtersNamed =
  (...names: string[]) =>
  (r: Report) => {
    const got = r.filters.map((f) => f.filter);
    return names.every((n) => got.includes(n)) ? [] : [`filters are [${got.join(', ')}], expected ${names.join(', ')}`];
  };
const linesMatch = (filter: string, re: RegExp) => (r: Report) => {
  const f = r.filters.find((x) => x.filter === filter);
  if (!f) return [`no ${filter} in the report (got ${r.filters.map((x) => x.filter).join(', ')})`];
  return f.lines.some((l) => re.test(l)) ? [] : [`${filter}: no line matches ${re} (got ${JSON.stringify(f.lines.slice(0, 5))})`];
};

// The fixtures: clip.mp4 320x240 25 fps 4 s H.264+AAC; clip2.mp4 the same size, 3 s; vertical.mp4
// 240x320 2 s; letterbox.mp4 320x240 3 s (1 s black, then bars); clip.webm 160x120 2 s VP9+Opus;
// anim.gif 120x90 10 fps 2 s; talk.wav 4 s mono (tone, 1.5 s silence, tone); music.mp3 5 s;
// audio.m4a 4 s; logo.png 64x64 RGBA; photo.jpg 640x480; img_001..010.jpg 160x120; gop1s.mp4
// 320x240 7 s H.264+AAC with a keyframe every second (for cuts by stream copy).
const H264 = ['-c:v', 'libx264', '-preset', 'veryfast'];
const CLIP_AV = [video('h264', 320, 240), audio('aac')];

export const RECIPES: Recipe[] = [
  // --- transcodes -------------------------------------------------------------------------------
  {
    id: 'h264-crf',
    source: `${WIKI}Encode/H.264`,
    category: 'transcode',
    task: {
      inputs: [input('clip.webm')],
      outputs: [output('h264.mp4', ['-c:v', 'libx264', '-preset', 'veryfast', '-crf', '22', '-c:a', 'aac', '-b:a', '128k'])],
    },
    expect: [{ file: 'h264.mp4', format: 'mp4', streams: [video('h264', 160, 120), audio('aac')], duration: [1.9, 2.2] }],
  },
  {
    id: 'h264-web-compatible',
    source: `${WIKI}Encode/H.264`,
    category: 'transcode',
    task: {
      inputs: [input('clip.mp4')],
      outputs: [output('web.mp4', [...H264, '-profile:v', 'main', '-pix_fmt', 'yuv420p', '-movflags', '+faststart', '-c:a', 'aac'])],
    },
    expect: [{ file: 'web.mp4', format: 'mp4', streams: CLIP_AV, duration: [3.9, 4.2] }],
  },
  {
    id: 'hevc-apple',
    source: `${WIKI}Encode/H.265`,
    category: 'transcode',
    task: {
      inputs: [input('clip.mp4')],
      outputs: [
        output('hevc.mp4', ['-c:v', 'libx265', '-preset', 'ultrafast', '-crf', '28', '-tag:v', 'hvc1', '-c:a', 'aac', '-b:a', '128k']),
      ],
    },
    expect: [{ file: 'hevc.mp4', format: 'mp4', streams: [video('hevc', 320, 240), audio('aac')], duration: [3.9, 4.2] }],
  },
  {
    id: 'hevc-x265-params',
    source: `${WIKI}Encode/H.265`,
    category: 'transcode',
    task: {
      inputs: [input('clip.mp4')],
      outputs: [output('hevc.mkv', ['-c:v', 'libx265', '-preset', 'ultrafast', '-x265-params', 'crf=26:keyint=50:log-level=error', '-an'])],
    },
    expect: [{ file: 'hevc.mkv', format: 'matroska', streams: [video('hevc', 320, 240)] }],
  },
  {
    id: 'vp9-webm',
    source: `${WIKI}Encode/VP9`,
    category: 'transcode',
    task: {
      inputs: [input('clip.mp4')],
      outputs: [
        output('clip.webm', [
          '-c:v',
          'libvpx-vp9',
          '-crf',
          '30',
          '-b:v',
          '0',
          '-deadline',
          'realtime',
          '-cpu-used',
          '8',
          '-c:a',
          'libopus',
        ]),
      ],
    },
    expect: [{ file: 'clip.webm', format: 'webm', streams: [video('vp9', 320, 240), audio('opus')], duration: [3.9, 4.2] }],
  },
  {
    id: 'av1-svt',
    source: `${WIKI}Encode/AV1`,
    category: 'transcode',
    task: {
      inputs: [input('clip.mp4')],
      outputs: [output('av1.mp4', ['-c:v', 'libsvtav1', '-crf', '35', '-preset', '12', '-c:a', 'copy'])],
    },
    expect: [{ file: 'av1.mp4', format: 'mp4', streams: [video('av1', 320, 240), audio('aac')] }],
  },
  {
    id: 'prores-mov',
    source: `${WIKI}Encode/VFX`,
    category: 'transcode',
    task: { inputs: [input('clip.mp4')], outputs: [output('master.mov', ['-c:v', 'prores_ks', '-profile:v', '3', '-c:a', 'pcm_s16le'])] },
    expect: [{ file: 'master.mov', format: 'mov', streams: [video('prores', 320, 240), audio('pcm_s16le')] }],
  },
  {
    id: 'remux-copy',
    source: `${FFMPEG_DOC}Stream-copy`,
    category: 'transcode',
    task: { inputs: [input('clip.mp4')], outputs: [output('remux.mkv', ['-c', 'copy'])] },
    expect: [{ file: 'remux.mkv', format: 'matroska', streams: CLIP_AV, duration: [3.9, 4.2] }],
  },
  {
    id: 'scale-keep-aspect',
    source: `${WIKI}Scaling`,
    category: 'transcode',
    task: { inputs: [input('clip.mp4')], outputs: [output('small.mp4', ['-vf', 'scale=160:-1', ...H264, '-c:a', 'copy'])] },
    expect: [{ file: 'small.mp4', streams: [video('h264', 160, 120), audio('aac')] }],
  },
  {
    id: 'fit-and-pad',
    source: 'https://superuser.com/a/547406',
    category: 'transcode',
    task: {
      inputs: [input('vertical.mp4')],
      outputs: [
        output('padded.mp4', [
          '-vf',
          'scale=320:240:force_original_aspect_ratio=decrease,pad=320:240:(ow-iw)/2:(oh-ih)/2,setsar=1',
          ...H264,
          '-c:a',
          'aac',
        ]),
      ],
    },
    expect: [{ file: 'padded.mp4', streams: CLIP_AV, duration: [1.9, 2.2] }],
  },
  {
    id: 'crop-center',
    source: `${FILTERS}crop`,
    category: 'transcode',
    task: { inputs: [input('clip.mp4')], outputs: [output('crop.mp4', ['-vf', 'crop=160:120', ...H264, '-an'])] },
    expect: [{ file: 'crop.mp4', streams: [video('h264', 160, 120)] }],
  },
  {
    id: 'rotate-90',
    source: 'https://stackoverflow.com/a/9570992',
    category: 'transcode',
    task: { inputs: [input('clip.mp4')], outputs: [output('rotated.mp4', ['-vf', 'transpose=1', ...H264, '-c:a', 'copy'])] },
    expect: [{ file: 'rotated.mp4', streams: [video('h264', 240, 320), audio('aac')] }],
  },
  {
    id: 'frame-rate',
    source: `${WIKI}ChangingFrameRate`,
    category: 'transcode',
    task: { inputs: [input('clip.mp4')], outputs: [output('10fps.mp4', ['-filter:v', 'fps=10', ...H264, '-an'])] },
    expect: [{ file: '10fps.mp4', streams: [video('h264', 320, 240, [40, 41])] }],
  },
  {
    id: 'remove-audio',
    source: RENDI,
    category: 'transcode',
    task: { inputs: [input('clip.mp4')], outputs: [output('silent.mp4', ['-an', '-c:v', 'copy'])] },
    expect: [{ file: 'silent.mp4', streams: [video('h264', 320, 240)] }],
  },
  {
    id: 'gif-to-mp4',
    source: 'https://unix.stackexchange.com/a/294892',
    category: 'transcode',
    task: {
      inputs: [input('anim.gif')],
      outputs: [output('anim.mp4', ['-movflags', 'faststart', '-pix_fmt', 'yuv420p', '-vf', 'scale=trunc(iw/2)*2:trunc(ih/2)*2'])],
    },
    expect: [{ file: 'anim.mp4', streams: [video('h264', 120, 90)], duration: [1.9, 2.2] }],
  },
  {
    id: 'colour-and-sharpen',
    source: `${FILTERS}eq`,
    category: 'transcode',
    task: {
      inputs: [input('clip.mp4')],
      outputs: [output('graded.mp4', ['-vf', 'eq=brightness=0.06:saturation=1.5,unsharp=5:5:1.0,hqdn3d', ...H264, '-c:a', 'copy'])],
    },
    expect: [{ file: 'graded.mp4', streams: CLIP_AV }],
  },
  {
    id: 'fade-in-out',
    source: `${FILTERS}fade`,
    category: 'transcode',
    task: {
      inputs: [input('clip.mp4')],
      outputs: [
        output('faded.mp4', [
          '-vf',
          'fade=t=in:st=0:d=1,fade=t=out:st=3:d=1',
          '-af',
          'afade=t=in:st=0:d=1,afade=t=out:st=3:d=1',
          ...H264,
          '-c:a',
          'aac',
        ]),
      ],
    },
    expect: [{ file: 'faded.mp4', streams: CLIP_AV, duration: [3.9, 4.2] }],
  },
  {
    id: 'strip-metadata-title',
    source: `${FFMPEG_DOC}Main-options`,
    category: 'transcode',
    task: {
      inputs: [input('clip.mp4')],
      outputs: [output('titled.mp4', ['-map_metadata', '-1', '-metadata', 'title=My holiday', '-c', 'copy'])],
    },
    expect: [{ file: 'titled.mp4', streams: CLIP_AV }],
  },

  // --- trims ------------------------------------------------------------------------------------
  {
    id: 'trim-input-seek',
    source: `${WIKI}Seeking`,
    category: 'trim',
    task: { inputs: [input('clip.mp4', ['-ss', '1', '-t', '2'])], outputs: [output('cut.mp4', [...H264, '-c:a', 'aac'])] },
    expect: [{ file: 'cut.mp4', streams: CLIP_AV, duration: [1.9, 2.15] }],
  },
  {
    id: 'trim-ss-to',
    source: `${WIKI}Seeking`,
    category: 'trim',
    task: {
      inputs: [input('clip.mp4', ['-ss', '00:00:01.000', '-to', '00:00:03.500'])],
      outputs: [output('cut.mkv', [...H264, '-c:a', 'aac'])],
    },
    expect: [{ file: 'cut.mkv', streams: CLIP_AV, duration: [2.4, 2.65] }],
  },
  {
    id: 'trim-last-seconds',
    source: `${FFMPEG_DOC}Main-options`,
    category: 'trim',
    task: { inputs: [input('clip.mp4', ['-sseof', '-2'])], outputs: [output('tail.mp4', [...H264, '-c:a', 'aac'])] },
    expect: [{ file: 'tail.mp4', streams: CLIP_AV, duration: [1.9, 2.2] }],
  },
  {
    id: 'trim-output-duration-copy',
    source: RENDI,
    category: 'trim',
    task: { inputs: [input('clip.mp4')], outputs: [output('first2.mp4', ['-t', '2', '-c', 'copy'])] },
    expect: [{ file: 'first2.mp4', streams: CLIP_AV, duration: [1.9, 2.2] }],
  },
  {
    id: 'trim-filter',
    source: `${FILTERS}trim`,
    category: 'trim',
    task: {
      inputs: [input('clip.mp4')],
      outputs: [
        output('trimmed.mp4', [
          '-vf',
          'trim=start=1:end=3,setpts=PTS-STARTPTS',
          '-af',
          'atrim=start=1:end=3,asetpts=PTS-STARTPTS',
          ...H264,
          '-c:a',
          'aac',
        ]),
      ],
    },
    expect: [{ file: 'trimmed.mp4', streams: CLIP_AV, duration: [1.9, 2.15] }],
  },
  {
    id: 'delay-audio-itsoffset',
    source: `${FFMPEG_DOC}Main-options`,
    category: 'trim',
    task: {
      inputs: [input('clip.mp4'), input('clip.mp4', ['-itsoffset', '0.5'])],
      outputs: [output('synced.mp4', ['-c:v', 'copy', '-c:a', 'aac'], ['0:v', '1:a'])],
    },
    expect: [{ file: 'synced.mp4', streams: CLIP_AV }],
  },

  // --- thumbnails and sprites ---------------------------------------------------------------------
  {
    id: 'thumbnail-at-time',
    source: `${WIKI}Create%20a%20thumbnail%20image%20every%20X%20seconds%20of%20the%20video`,
    category: 'thumbnail',
    task: { inputs: [input('clip.mp4', ['-ss', '2'])], outputs: [output('thumb.jpg', ['-frames:v', '1', '-q:v', '2'])] },
    expect: [{ file: 'thumb.jpg', format: 'image2', streams: [video('mjpeg', 320, 240)] }],
  },
  {
    id: 'thumbnail-every-second',
    source: `${WIKI}Create%20a%20thumbnail%20image%20every%20X%20seconds%20of%20the%20video`,
    category: 'thumbnail',
    task: { inputs: [input('clip.mp4')], outputs: [output('thumb_%03d.png', ['-vf', 'fps=1'])] },
    expect: [{ file: 'thumb_%03d.png', count: [4, 5], streams: [video('png', 320, 240)] }],
  },
  {
    id: 'thumbnail-filter',
    source: `${FILTERS}thumbnail`,
    category: 'thumbnail',
    task: { inputs: [input('clip.mp4')], outputs: [output('best.png', ['-vf', 'thumbnail=50', '-frames:v', '1'])] },
    expect: [{ file: 'best.png', streams: [video('png', 320, 240)] }],
  },
  {
    id: 'thumbnail-webp-scaled',
    source: RENDI,
    category: 'thumbnail',
    task: {
      inputs: [input('clip.mp4', ['-ss', '1'])],
      outputs: [output('poster.webp', ['-vf', 'scale=160:-1', '-frames:v', '1', '-c:v', 'libwebp', '-quality', '80'])],
    },
    expect: [{ file: 'poster.webp', streams: [video('webp', 160, 120)] }],
  },
  {
    id: 'frames-to-images',
    source: `${FFMPEG_DOC}Video-and-Audio-file-format-conversion`,
    category: 'thumbnail',
    task: { inputs: [input('clip.mp4')], outputs: [output('frame_%04d.png', ['-frames:v', '5'])] },
    expect: [{ file: 'frame_%04d.png', count: 5, streams: [video('png', 320, 240)] }],
  },
  {
    id: 'sprite-sheet',
    source: `${FILTERS}tile`,
    category: 'sprite',
    task: { inputs: [input('clip.mp4')], outputs: [output('sprite.jpg', ['-vf', 'fps=2,scale=80:-1,tile=4x2', '-frames:v', '1', '-an'])] },
    expect: [{ file: 'sprite.jpg', streams: [video('mjpeg', 320, 120)] }],
  },
  {
    id: 'sprite-sheets-numbered',
    source: `${FILTERS}tile`,
    category: 'sprite',
    task: { inputs: [input('clip.mp4')], outputs: [output('sheet_%02d.png', ['-vf', 'fps=4,scale=64:48,tile=4x2', '-an'])] },
    expect: [{ file: 'sheet_%02d.png', count: 2, streams: [video('png', 256, 96)] }],
  },
  {
    id: 'sprite-keyframes',
    source: `${FILTERS}tile`,
    category: 'sprite',
    task: {
      inputs: [input('clip.mp4', ['-skip_frame', 'nokey'])],
      outputs: [output('keyframes.png', ['-vf', 'scale=128:96,tile=2x2', '-an', '-fps_mode', 'passthrough', '-frames:v', '1'])],
    },
    expect: [{ file: 'keyframes.png', streams: [video('png', 256, 192)] }],
  },

  // --- GIFs -------------------------------------------------------------------------------------
  {
    id: 'gif-palette',
    source: 'https://superuser.com/a/556031',
    category: 'gif',
    task: {
      inputs: [input('clip.mp4', ['-ss', '1', '-t', '2'])],
      outputs: [
        output('clip.gif', ['-vf', 'fps=10,scale=160:-1:flags=lanczos,split[s0][s1];[s0]palettegen[p];[s1][p]paletteuse', '-loop', '0']),
      ],
    },
    expect: [{ file: 'clip.gif', format: 'gif', streams: [video('gif', 160, 120, [19, 21])] }],
  },
  {
    id: 'gif-palette-two-inputs',
    source: 'https://superuser.com/a/556031',
    category: 'gif',
    task: {
      inputs: [input('clip.mp4', ['-t', '2'])],
      filter_complex: '[0:v]fps=8,scale=120:-1,split[a][b];[a]palettegen=stats_mode=diff[p];[b][p]paletteuse=dither=bayer:bayer_scale=5[g]',
      outputs: [output('dither.gif', [], ['[g]'])],
    },
    expect: [{ file: 'dither.gif', streams: [video('gif', 120, 90)] }],
  },
  {
    id: 'gif-simple',
    source: RENDI,
    category: 'gif',
    task: { inputs: [input('vertical.mp4')], outputs: [output('simple.gif', ['-vf', 'fps=5,scale=-1:80', '-t', '2'])] },
    expect: [{ file: 'simple.gif', streams: [video('gif', 60, 80)] }],
  },
  {
    id: 'animated-webp',
    source: `${FFMPEG_DOC}Main-options`,
    category: 'gif',
    task: {
      inputs: [input('clip.mp4', ['-t', '1'])],
      outputs: [output('anim.webp', ['-vf', 'fps=10,scale=160:-1', '-c:v', 'libwebp_anim', '-loop', '0', '-q:v', '60'])],
    },
    expect: [{ file: 'anim.webp', format: 'webp_pipe' }],
  },

  // --- overlays ---------------------------------------------------------------------------------
  {
    id: 'watermark-corner',
    source: `${FILTERS}overlay-1`,
    category: 'overlay',
    task: {
      inputs: [input('clip.mp4'), input('logo.png')],
      outputs: [output('marked.mp4', ['-filter_complex', 'overlay=main_w-overlay_w-10:main_h-overlay_h-10', ...H264, '-c:a', 'copy'])],
    },
    expect: [{ file: 'marked.mp4', streams: CLIP_AV, duration: [3.9, 4.2] }],
  },
  {
    id: 'watermark-transparent',
    source: RENDI,
    category: 'overlay',
    task: {
      inputs: [input('clip.mp4'), input('logo.png')],
      outputs: [
        output(
          'faint.mp4',
          ['-filter_complex', '[1:v]format=rgba,colorchannelmixer=aa=0.5[logo];[0:v][logo]overlay=10:10[v]', ...H264, '-c:a', 'copy'],
          ['[v]', '0:a'],
        ),
      ],
    },
    expect: [{ file: 'faint.mp4', streams: CLIP_AV }],
  },
  {
    id: 'picture-in-picture',
    source: `${FILTERS}overlay-1`,
    category: 'overlay',
    task: {
      inputs: [input('clip.mp4'), input('clip2.mp4')],
      filter_complex: '[1:v]scale=100:-1[pip];[0:v][pip]overlay=W-w-10:10:shortest=1[v]',
      outputs: [output('pip.mp4', [...H264, '-c:a', 'aac'], ['[v]', '0:a'])],
    },
    expect: [{ file: 'pip.mp4', streams: CLIP_AV }],
  },
  {
    id: 'stack-vertical',
    source: `${FILTERS}vstack`,
    category: 'overlay',
    task: {
      inputs: [input('clip.mp4'), input('clip2.mp4')],
      filter_complex: '[0:v][1:v]vstack=inputs=2:shortest=1[v]',
      outputs: [output('stacked.mp4', H264, ['[v]'])],
    },
    expect: [{ file: 'stacked.mp4', streams: [video('h264', 320, 480)], duration: [2.9, 3.2] }],
  },
  {
    id: 'xfade-transition',
    source: `${WIKI}Xfade`,
    category: 'overlay',
    task: {
      inputs: [input('clip.mp4'), input('clip2.mp4')],
      filter_complex: '[0:v][1:v]xfade=transition=fade:duration=1:offset=3[v];[0:a][1:a]acrossfade=d=1[a]',
      outputs: [output('xfade.mp4', [...H264, '-c:a', 'aac'], ['[v]', '[a]'])],
    },
    expect: [{ file: 'xfade.mp4', streams: CLIP_AV, duration: [5.9, 6.2] }],
  },
  {
    id: 'ken-burns-zoompan',
    source: `${FILTERS}zoompan`,
    category: 'overlay',
    task: {
      inputs: [input('photo.jpg')],
      outputs: [output('zoom.mp4', ['-vf', "zoompan=z='min(zoom+0.0015,1.5)':d=75:s=320x240", '-c:v', 'libx264', '-pix_fmt', 'yuv420p'])],
    },
    expect: [{ file: 'zoom.mp4', streams: [video('h264', 320, 240, 75)] }],
  },

  // --- text -------------------------------------------------------------------------------------
  {
    id: 'drawtext-centred-box',
    source: `${FILTERS}drawtext`,
    category: 'text',
    task: {
      inputs: [input('clip.mp4'), input('font.ttf')],
      outputs: [
        output('title.mp4', [
          '-vf',
          "drawtext=fontfile=font.ttf:text='Hello World':fontcolor=white:fontsize=24:box=1:boxcolor=black@0.5:boxborderw=5:x=(w-text_w)/2:y=(h-text_h)/2",
          ...H264,
          '-c:a',
          'copy',
        ]),
      ],
    },
    expect: [{ file: 'title.mp4', streams: CLIP_AV }],
  },
  {
    id: 'drawtext-running-time',
    source: `${FILTERS}Text-expansion`,
    category: 'text',
    task: {
      inputs: [input('clip.mp4'), input('font.ttf')],
      outputs: [
        output('clock.mp4', [
          '-vf',
          "drawtext=fontfile=font.ttf:text='%{pts\\:hms}':x=10:y=10:fontsize=20:fontcolor=yellow",
          ...H264,
          '-an',
        ]),
      ],
    },
    expect: [{ file: 'clock.mp4', streams: [video('h264', 320, 240)] }],
  },
  {
    id: 'drawtext-textfile',
    source: `${FILTERS}drawtext`,
    category: 'text',
    task: {
      inputs: [input('clip.mp4'), input('font.ttf'), input('caption.txt')],
      outputs: [
        output('caption.mp4', [
          '-vf',
          'drawtext=fontfile=font.ttf:textfile=caption.txt:x=10:y=h-th-10:fontcolor=white',
          ...H264,
          '-c:a',
          'copy',
        ]),
      ],
    },
    expect: [{ file: 'caption.mp4', streams: CLIP_AV }],
  },
  {
    id: 'drawtext-service-font',
    source: RENDI,
    category: 'text',
    task: {
      inputs: [input('clip.mp4')],
      outputs: [
        output('plain-font.mp4', [
          '-vf',
          "drawtext=text='No font file needed':fontsize=18:fontcolor=white:x=10:y=10:enable='between(t,1,3)'",
          ...H264,
          '-c:a',
          'copy',
        ]),
      ],
    },
    expect: [{ file: 'plain-font.mp4', streams: CLIP_AV }],
  },

  // --- subtitles --------------------------------------------------------------------------------
  {
    id: 'burn-subtitles',
    source: `${WIKI}HowToBurnSubtitlesIntoVideo`,
    category: 'subtitles',
    task: {
      inputs: [input('clip.mp4'), input('subs.srt')],
      outputs: [output('burnt.mp4', ['-vf', 'subtitles=subs.srt', ...H264, '-c:a', 'copy'])],
    },
    expect: [{ file: 'burnt.mp4', streams: CLIP_AV }],
  },
  {
    id: 'burn-subtitles-styled',
    source: `${FILTERS}subtitles-1`,
    category: 'subtitles',
    task: {
      inputs: [input('clip.mp4'), input('subs.srt')],
      outputs: [
        output('styled.mp4', [
          '-vf',
          "subtitles=subs.srt:force_style='FontName=DejaVu Sans,FontSize=24,PrimaryColour=&H0000FFFF'",
          ...H264,
          '-c:a',
          'copy',
        ]),
      ],
    },
    expect: [{ file: 'styled.mp4', streams: CLIP_AV }],
  },
  {
    id: 'soft-subtitles-mp4',
    source: `${WIKI}HowToBurnSubtitlesIntoVideo`,
    category: 'subtitles',
    task: {
      inputs: [input('clip.mp4'), input('subs.srt')],
      outputs: [output('soft.mp4', ['-c', 'copy', '-c:s', 'mov_text', '-metadata:s:s:0', 'language=eng'], ['0', '1'])],
    },
    expect: [{ file: 'soft.mp4', streams: [...CLIP_AV, { type: 'subtitle', codec: 'mov_text' }] }],
  },
  {
    id: 'soft-subtitles-mkv',
    source: `${FFMPEG_DOC}Stream-selection`,
    category: 'subtitles',
    task: { inputs: [input('clip.mp4'), input('subs.srt')], outputs: [output('soft.mkv', ['-map', '0', '-map', '1', '-c', 'copy'])] },
    expect: [{ file: 'soft.mkv', format: 'matroska', streams: [...CLIP_AV, { type: 'subtitle', codec: 'subrip' }] }],
  },
  {
    id: 'srt-to-vtt',
    source: `${FORMATS}webvtt-1`,
    category: 'subtitles',
    task: { inputs: [input('subs.srt')], outputs: [output('subs.vtt')] },
    expect: [{ file: 'subs.vtt', format: 'webvtt', text: [/^WEBVTT/, /Hello from the recipe suite/] }],
  },
  {
    id: 'attach-font-mkv',
    source: `${FFMPEG_DOC}Main-options`,
    category: 'subtitles',
    task: {
      inputs: [input('clip.mp4'), input('font.ttf')],
      outputs: [output('with-font.mkv', ['-c', 'copy', '-attach', 'font.ttf', '-metadata:s:t', 'mimetype=application/x-truetype-font'])],
    },
    expect: [{ file: 'with-font.mkv', streams: [...CLIP_AV, { type: 'attachment' }] }],
  },

  // --- concat -----------------------------------------------------------------------------------
  {
    id: 'concat-filter',
    source: `${WIKI}Concatenate`,
    category: 'concat',
    task: {
      inputs: [input('clip.mp4'), input('clip2.mp4')],
      filter_complex: '[0:v][0:a][1:v][1:a]concat=n=2:v=1:a=1[v][a]',
      outputs: [output('joined.mp4', [...H264, '-c:a', 'aac'], ['[v]', '[a]'])],
    },
    expect: [{ file: 'joined.mp4', streams: CLIP_AV, duration: [6.9, 7.2] }],
  },
  {
    id: 'concat-list-copy',
    source: `${WIKI}Concatenate`,
    category: 'concat',
    task: { inputs: [input('list.txt', ['-f', 'concat'])], outputs: [output('joined-copy.mp4', ['-c', 'copy'])] },
    expect: [{ file: 'joined-copy.mp4', streams: CLIP_AV, duration: [6.9, 7.2] }],
  },
  {
    id: 'concat-list-reencode',
    source: `${WIKI}Concatenate`,
    category: 'concat',
    task: {
      inputs: [input('list.txt', ['-f', 'concat', '-safe', '0'])],
      outputs: [output('joined.webm', ['-c:v', 'libvpx', '-deadline', 'realtime', '-cpu-used', '8', '-b:v', '500k', '-c:a', 'libvorbis'])],
    },
    expect: [{ file: 'joined.webm', format: 'webm', streams: [video('vp8', 320, 240), audio('vorbis')], duration: [6.9, 7.2] }],
  },
  {
    id: 'concat-audio',
    source: `${FILTERS}concat`,
    category: 'concat',
    task: {
      inputs: [input('music.mp3'), input('talk.wav')],
      outputs: [
        output('both.m4a', [
          '-filter_complex',
          '[0:a]aformat=sample_rates=44100:channel_layouts=stereo[m];[1:a]aformat=sample_rates=44100:channel_layouts=stereo[t];[m][t]concat=n=2:v=0:a=1',
          '-c:a',
          'aac',
        ]),
      ],
    },
    expect: [{ file: 'both.m4a', streams: [audio('aac')], duration: [8.9, 9.2] }],
  },

  // --- audio ------------------------------------------------------------------------------------
  {
    id: 'extract-audio-copy',
    source: RENDI,
    category: 'audio',
    task: { inputs: [input('clip.mp4')], outputs: [output('sound.m4a', ['-vn', '-c:a', 'copy'])] },
    expect: [{ file: 'sound.m4a', streams: [audio('aac')], duration: [3.9, 4.2] }],
  },
  {
    id: 'mp3-vbr',
    source: `${WIKI}Encode/MP3`,
    category: 'audio',
    task: { inputs: [input('talk.wav')], outputs: [output('talk.mp3', ['-c:a', 'libmp3lame', '-q:a', '2'])] },
    expect: [{ file: 'talk.mp3', format: 'mp3', streams: [audio('mp3')], duration: [3.9, 4.2] }],
  },
  {
    id: 'aac-bitrate',
    source: `${WIKI}Encode/AAC`,
    category: 'audio',
    task: { inputs: [input('talk.wav')], outputs: [output('talk.m4a', ['-c:a', 'aac', '-b:a', '192k'])] },
    expect: [{ file: 'talk.m4a', streams: [audio('aac')] }],
  },
  {
    id: 'opus-voice',
    source: 'https://wiki.xiph.org/Opus_Recommended_Settings',
    category: 'audio',
    task: {
      inputs: [input('music.mp3')],
      outputs: [output('music.opus', ['-c:a', 'libopus', '-b:a', '64k', '-vbr', 'on', '-application', 'voip'])],
    },
    expect: [{ file: 'music.opus', format: 'ogg', streams: [audio('opus')] }],
  },
  {
    id: 'flac-lossless',
    source: RENDI,
    category: 'audio',
    task: { inputs: [input('talk.wav')], outputs: [output('talk.flac', ['-c:a', 'flac', '-compression_level', '8'])] },
    expect: [{ file: 'talk.flac', format: 'flac', streams: [audio('flac')] }],
  },
  {
    id: 'resample-mono',
    source: `${FFMPEG_DOC}Audio-Options`,
    category: 'audio',
    task: { inputs: [input('music.mp3')], outputs: [output('mono.wav', ['-ac', '1', '-ar', '22050'])] },
    expect: [{ file: 'mono.wav', format: 'wav', streams: [audio('pcm_s16le')], duration: [4.9, 5.2] }],
  },
  {
    id: 'volume-and-loudnorm',
    source: `${WIKI}AudioVolume`,
    category: 'audio',
    task: {
      inputs: [input('music.mp3')],
      outputs: [output('normal.m4a', ['-af', 'volume=0.5,loudnorm=I=-16:TP=-1.5:LRA=11', '-ar', '48000', '-c:a', 'aac'])],
    },
    expect: [{ file: 'normal.m4a', streams: [audio('aac')] }],
  },
  {
    id: 'mix-background-music',
    source: `${FILTERS}amix`,
    category: 'audio',
    task: {
      inputs: [input('clip.mp4'), input('music.mp3')],
      filter_complex: '[1:a]volume=0.3[bg];[0:a][bg]amix=inputs=2:duration=first[a]',
      outputs: [output('mixed.mp4', ['-c:v', 'copy', '-c:a', 'aac'], ['0:v', '[a]'])],
    },
    expect: [{ file: 'mixed.mp4', streams: CLIP_AV, duration: [3.9, 4.2] }],
  },
  {
    id: 'replace-audio',
    source: RENDI,
    category: 'audio',
    task: {
      inputs: [input('clip.mp4'), input('music.mp3')],
      outputs: [output('new-sound.mp4', ['-c:v', 'copy', '-c:a', 'aac', '-shortest'], ['0:v:0', '1:a:0'])],
    },
    expect: [{ file: 'new-sound.mp4', streams: CLIP_AV, duration: [3.9, 4.3] }],
  },
  {
    id: 'silence-remove',
    source: `${FILTERS}silenceremove`,
    category: 'audio',
    task: {
      inputs: [input('talk.wav')],
      outputs: [output('tight.wav', ['-af', 'silenceremove=stop_periods=-1:stop_duration=0.5:stop_threshold=-50dB'])],
    },
    expect: [{ file: 'tight.wav', streams: [audio('pcm_s16le')], duration: [2.4, 3.4] }],
  },
  {
    id: 'waveform-picture',
    source: `${WIKI}Waveform`,
    category: 'audio',
    task: { inputs: [input('music.mp3')], outputs: [output('wave.png', ['-filter_complex', 'showwavespic=s=640x120', '-frames:v', '1'])] },
    expect: [{ file: 'wave.png', streams: [video('png', 640, 120)] }],
  },
  {
    id: 'spectrogram-picture',
    source: `${FILTERS}showspectrumpic`,
    category: 'audio',
    task: { inputs: [input('talk.wav')], outputs: [output('spectrum.png', ['-lavfi', 'showspectrumpic=s=320x160:legend=0'])] },
    expect: [{ file: 'spectrum.png', streams: [video('png', 320, 160)] }],
  },
  {
    id: 'audio-cover-art',
    source: `${FORMATS}mp3`,
    category: 'audio',
    task: {
      inputs: [input('music.mp3'), input('photo.jpg')],
      outputs: [
        output(
          'tagged.mp3',
          ['-c', 'copy', '-id3v2_version', '3', '-metadata:s:v', 'title=Album cover', '-metadata:s:v', 'comment=Cover (front)'],
          ['0:a', '1:v'],
        ),
      ],
    },
    expect: [{ file: 'tagged.mp3', format: 'mp3', streams: [audio('mp3'), video('mjpeg', 640, 480)] }],
  },

  // --- still image + audio, image sequences -------------------------------------------------------
  {
    id: 'still-image-with-audio',
    source: `${WIKI}Slideshow`,
    category: 'still-image',
    task: {
      inputs: [input('photo.jpg', ['-loop', '1']), input('music.mp3')],
      outputs: [
        output('podcast.mp4', [
          '-c:v',
          'libx264',
          '-preset',
          'veryfast',
          '-tune',
          'stillimage',
          '-c:a',
          'aac',
          '-b:a',
          '192k',
          '-pix_fmt',
          'yuv420p',
          '-shortest',
        ]),
      ],
    },
    expect: [{ file: 'podcast.mp4', streams: [video('h264', 640, 480), audio('aac')], duration: [4.9, 5.9] }],
  },
  {
    id: 'still-image-for-seconds',
    source: `${WIKI}Slideshow`,
    category: 'still-image',
    task: {
      inputs: [input('photo.jpg', ['-loop', '1', '-t', '3', '-framerate', '25'])],
      outputs: [output('still.mp4', ['-c:v', 'libx264', '-preset', 'veryfast', '-pix_fmt', 'yuv420p', '-vf', 'scale=320:-2'])],
    },
    expect: [{ file: 'still.mp4', streams: [video('h264', 320, 240, 75)], duration: [2.9, 3.1] }],
  },
  {
    id: 'audio-visualised',
    source: `${FILTERS}showwaves`,
    category: 'still-image',
    task: {
      inputs: [input('music.mp3')],
      filter_complex: '[0:a]showwaves=s=320x120:mode=line:rate=25,format=yuv420p[v]',
      outputs: [output('waves.mp4', ['-c:v', 'libx264', '-preset', 'veryfast', '-c:a', 'aac'], ['[v]', '0:a'])],
    },
    expect: [{ file: 'waves.mp4', streams: [video('h264', 320, 120), audio('aac')], duration: [4.9, 5.2] }],
  },
  {
    id: 'sequence-to-video',
    source: `${WIKI}Slideshow`,
    category: 'sequence',
    task: {
      inputs: [input('img_%03d.jpg', ['-framerate', '10'])],
      outputs: [output('slides.mp4', ['-c:v', 'libx264', '-pix_fmt', 'yuv420p', '-r', '10'])],
    },
    expect: [{ file: 'slides.mp4', streams: [video('h264', 160, 120, 10)], duration: [0.9, 1.1] }],
  },
  {
    id: 'sequence-start-number',
    source: `${FORMATS}image2-1`,
    category: 'sequence',
    task: {
      inputs: [input('img_%03d.jpg', ['-framerate', '5', '-start_number', '3'])],
      outputs: [output('from3.mp4', ['-c:v', 'libx264', '-pix_fmt', 'yuv420p'])],
    },
    expect: [{ file: 'from3.mp4', streams: [video('h264', 160, 120, 8)] }],
  },
  {
    id: 'sequence-to-gif',
    source: `${WIKI}Slideshow`,
    category: 'sequence',
    task: { inputs: [input('img_%03d.jpg', ['-framerate', '5'])], outputs: [output('slides.gif', ['-vf', 'scale=80:-1'])] },
    expect: [{ file: 'slides.gif', streams: [video('gif', 80, 60, 10)] }],
  },
  {
    id: 'sequence-with-music',
    source: `${WIKI}Slideshow`,
    category: 'sequence',
    task: {
      inputs: [input('img_%03d.jpg', ['-framerate', '2']), input('music.mp3')],
      outputs: [output('slideshow.mp4', ['-c:v', 'libx264', '-pix_fmt', 'yuv420p', '-r', '25', '-c:a', 'aac', '-shortest'])],
    },
    expect: [{ file: 'slideshow.mp4', streams: [video('h264', 160, 120), audio('aac')], duration: [4.9, 5.3] }],
  },

  // --- speed and reverse ------------------------------------------------------------------------
  {
    id: 'speed-up-2x',
    source: `${WIKI}How%20to%20speed%20up%20/%20slow%20down%20a%20video`,
    category: 'speed',
    task: {
      inputs: [input('clip.mp4')],
      filter_complex: '[0:v]setpts=0.5*PTS[v];[0:a]atempo=2.0[a]',
      outputs: [output('fast.mp4', [...H264, '-c:a', 'aac'], ['[v]', '[a]'])],
    },
    expect: [{ file: 'fast.mp4', streams: CLIP_AV, duration: [1.9, 2.2] }],
  },
  {
    id: 'slow-motion',
    source: `${WIKI}How%20to%20speed%20up%20/%20slow%20down%20a%20video`,
    category: 'speed',
    task: { inputs: [input('clip2.mp4')], outputs: [output('slow.mp4', ['-filter:v', 'setpts=2.0*PTS', '-an', ...H264])] },
    expect: [{ file: 'slow.mp4', streams: [video('h264', 320, 240)], duration: [5.9, 6.2] }],
  },
  {
    id: 'audio-tempo',
    source: `${FILTERS}atempo`,
    category: 'speed',
    task: { inputs: [input('music.mp3')], outputs: [output('quick.mp3', ['-filter:a', 'atempo=2.0'])] },
    expect: [{ file: 'quick.mp3', streams: [audio('mp3')], duration: [2.4, 2.7] }],
  },
  {
    id: 'reverse',
    source: `${FILTERS}reverse`,
    category: 'speed',
    task: {
      inputs: [input('clip2.mp4')],
      outputs: [output('reversed.mp4', ['-vf', 'reverse', '-af', 'areverse', ...H264, '-c:a', 'aac'])],
    },
    expect: [{ file: 'reversed.mp4', streams: CLIP_AV, duration: [2.9, 3.2] }],
  },
  {
    id: 'boomerang-loop',
    source: RENDI,
    category: 'speed',
    task: { inputs: [input('clip2.mp4', ['-stream_loop', '1'])], outputs: [output('looped.mp4', ['-c', 'copy'])] },
    expect: [{ file: 'looped.mp4', streams: CLIP_AV, duration: [5.9, 6.2] }],
  },

  // --- HLS and DASH -----------------------------------------------------------------------------
  {
    id: 'hls-vod',
    source: `${FORMATS}hls-2`,
    category: 'hls',
    task: {
      inputs: [input('clip.mp4')],
      outputs: [output('playlist.m3u8', [...H264, '-g', '25', '-c:a', 'aac', '-f', 'hls', '-hls_time', '2', '-hls_playlist_type', 'vod'])],
    },
    expect: [
      { file: 'playlist.m3u8', text: [/#EXT-X-PLAYLIST-TYPE:VOD/, /^playlist0\.ts$/m, /#EXT-X-ENDLIST/] },
      { file: 'playlist%d.ts', count: 2, format: 'mpegts', streams: CLIP_AV },
    ],
  },
  {
    id: 'hls-fmp4',
    source: `${FORMATS}hls-2`,
    category: 'hls',
    task: {
      inputs: [input('clip.mp4')],
      outputs: [output('fmp4.m3u8', ['-c', 'copy', '-f', 'hls', '-hls_segment_type', 'fmp4', '-hls_time', '4', '-hls_list_size', '0'])],
    },
    expect: [
      { file: 'fmp4.m3u8', text: [/#EXT-X-MAP:URI="fmp4_init\.mp4"/, /^fmp40\.m4s$/m] },
      { file: 'fmp4_init.mp4' },
      { file: 'fmp4%d.m4s', count: 1 },
    ],
  },
  {
    id: 'dash',
    source: `${FORMATS}dash-2`,
    category: 'hls',
    task: {
      inputs: [input('clip.mp4')],
      outputs: [output('manifest.mpd', [...H264, '-g', '25', '-c:a', 'aac', '-f', 'dash', '-seg_duration', '2'])],
    },
    expect: [
      { file: 'manifest.mpd', text: [/<MPD /, /manifest-init-stream\$RepresentationID\$\.m4s/] },
      { file: 'manifest-init-stream%d.m4s', count: 2 },
      { file: 'chunks', names: /^manifest-chunk-stream\d-\d{5}\.m4s$/, count: [4, 6] },
    ],
  },

  // --- analysis (a -f null output named .json: the service returns the filters' report) -----------
  {
    id: 'volumedetect',
    source: `${WIKI}AudioVolume`,
    category: 'analysis',
    task: { inputs: [input('music.mp3')], outputs: [output('volume.json', ['-af', 'volumedetect', '-vn', '-sn', '-dn', '-f', 'null'])] },
    expect: [{ file: 'volume.json', json: linesMatch('volumedetect', /mean_volume: -?\d/) }],
  },
  {
    id: 'loudnorm-measure',
    source: 'http://k.ylo.ph/2016/04/04/loudnorm.html',
    category: 'analysis',
    task: {
      inputs: [input('clip.mp4')],
      outputs: [output('loudness.json', ['-af', 'loudnorm=I=-16:TP=-1.5:LRA=11:print_format=json', '-f', 'null'])],
    },
    expect: [
      {
        file: 'loudness.json',
        json: (r) => (r.filters[0]?.json && 'input_i' in r.filters[0].json ? [] : [`no input_i in ${JSON.stringify(r.filters[0])}`]),
      },
    ],
  },
  {
    id: 'silencedetect',
    source: `${FILTERS}silencedetect`,
    category: 'analysis',
    task: { inputs: [input('talk.wav')], outputs: [output('silence.json', ['-af', 'silencedetect=noise=-50dB:d=0.5', '-f', 'null'])] },
    expect: [{ file: 'silence.json', json: linesMatch('silencedetect', /silence_start: 1(\.\d+)?/) }],
  },
  {
    id: 'blackdetect',
    source: `${FILTERS}blackdetect`,
    category: 'analysis',
    task: {
      inputs: [input('letterbox.mp4')],
      outputs: [output('black.json', ['-vf', 'blackdetect=d=0.5:pix_th=0.10', '-an', '-f', 'null'])],
    },
    expect: [{ file: 'black.json', json: linesMatch('blackdetect', /black_start:0 black_end:1/) }],
  },
  {
    id: 'cropdetect',
    source: `${FILTERS}cropdetect`,
    category: 'analysis',
    task: { inputs: [input('letterbox.mp4', ['-ss', '1.5'])], outputs: [output('crop.json', ['-vf', 'cropdetect=24:16:0', '-f', 'null'])] },
    expect: [{ file: 'crop.json', json: linesMatch('cropdetect', /crop=320:(176|180|192):0:(24|30|32)/) }],
  },
  {
    id: 'ebur128',
    source: `${FILTERS}ebur128-1`,
    category: 'analysis',
    task: { inputs: [input('music.mp3')], outputs: [output('r128.txt', ['-af', 'ebur128=peak=true', '-f', 'null'])] },
    expect: [{ file: 'r128.txt', text: [/Integrated loudness/, /I:\s+-\d/] }],
  },
  {
    id: 'ssim-compare',
    source: `${FILTERS}ssim`,
    category: 'analysis',
    task: {
      inputs: [input('clip.mp4'), input('clip.webm')],
      filter_complex: '[1:v]scale=320:240[b];[0:v][b]ssim',
      outputs: [output('ssim.json', ['-f', 'null'])],
    },
    expect: [{ file: 'ssim.json', json: linesMatch('ssim', /SSIM Y:\d/) }],
  },
  {
    id: 'scene-changes',
    source: `${FILTERS}select_002c-aselect`,
    category: 'analysis',
    task: {
      inputs: [input('list.txt', ['-f', 'concat'])],
      outputs: [output('scenes.json', ['-vf', "select='gt(scene,0.3)',metadata=print", '-an', '-f', 'null'])],
    },
    expect: [{ file: 'scenes.json', json: linesMatch('metadata', /lavfi\.scene_score=/) }],
  },
  {
    id: 'several-analyses',
    source: `${WIKI}Null`,
    category: 'analysis',
    task: {
      inputs: [input('clip.mp4')],
      outputs: [output('report.json', ['-af', 'volumedetect,astats=metadata=0', '-vf', 'signalstats,cropdetect', '-f', 'null'])],
    },
    expect: [{ file: 'report.json', json: filtersNamed('volumedetect', 'astats', 'cropdetect') }],
  },

  // --- tasks in ffmpeg-api.com's documented shape ---------------------------------------------------
  {
    id: 'ffmpeg-api-seek-scale-crf',
    source: FFMPEG_API,
    category: 'ffmpeg-api.com',
    task: {
      inputs: [{ file_path: '{dir}/clip.mp4', options: ['-ss', '1'] }],
      filter_complex: '[0:v]scale=1280:720[out]',
      outputs: [{ file: 'output.mp4', options: ['-c:v', 'libx264', '-crf', '23', '-preset', 'ultrafast'], maps: ['[out]'] }],
    },
    expect: [{ file: 'output.mp4', streams: [video('h264', 1280, 720)], duration: [2.9, 3.2] }],
  },
  {
    id: 'ffmpeg-api-mux-audio',
    source: FFMPEG_API,
    category: 'ffmpeg-api.com',
    task: {
      inputs: [{ file_path: '{dir}/vertical.mp4' }, { file_path: '{dir}/audio.m4a' }],
      outputs: [{ file: 'muxed.mp4', options: ['-c:v', 'copy', '-c:a', 'aac', '-shortest'], maps: ['0:v', '1:a'] }],
    },
    expect: [{ file: 'muxed.mp4', streams: [video('h264', 240, 320), audio('aac')], duration: [1.9, 2.3] }],
  },
  {
    id: 'ffmpeg-api-side-by-side',
    source: FFMPEG_API,
    category: 'ffmpeg-api.com',
    task: {
      inputs: [{ file_path: '{dir}/clip.mp4' }, { file_path: '{dir}/clip2.mp4' }],
      filter_complex: '[0:v]scale=960:540[l];[1:v]scale=960:540[r];[l][r]hstack[out]',
      outputs: [{ file: 'side_by_side.mp4', options: ['-preset', 'ultrafast'], maps: ['[out]'] }],
    },
    expect: [{ file: 'side_by_side.mp4', streams: [video('h264', 1920, 540)] }],
  },
  {
    id: 'ffmpeg-api-thumbnail-and-video',
    source: FFMPEG_API,
    category: 'ffmpeg-api.com',
    task: {
      inputs: [{ file_path: '{dir}/clip.mp4', options: ['-ss', '1'] }],
      outputs: [
        { file: 'preview.mp4', options: ['-t', '2', '-c:v', 'libx264', '-preset', 'veryfast', '-c:a', 'aac'] },
        { file: 'cover.jpg', options: ['-frames:v', '1'], maps: ['0:v'] },
      ],
    },
    expect: [
      { file: 'preview.mp4', streams: CLIP_AV, duration: [1.9, 2.2] },
      { file: 'cover.jpg', streams: [video('mjpeg', 320, 240)] },
    ],
  },

  // --- split into parts (-f segment) -------------------------------------------------------------
  {
    id: 'split-n-second-parts',
    source: 'https://www.ffmpeg-micro.com/blog/ffmpeg-segment-muxer-guide',
    category: 'segment',
    task: {
      inputs: [input('gop1s.mp4')],
      outputs: [output('out_%03d.mp4', ['-f', 'segment', '-segment_time', '3', '-reset_timestamps', '1', '-c', 'copy', '-map', '0'])],
    },
    // Cut at the first keyframe from 3 s and 6 s on: 3 s, 3 s and the last second.
    expect: [{ file: 'out_%03d.mp4', count: 3, format: 'mp4', streams: CLIP_AV, duration: [2.9, 3.2] }],
  },
  {
    id: 'split-n-second-parts-reencoded',
    source: 'https://www.ffmpeg-micro.com/blog/ffmpeg-segment-muxer-guide',
    category: 'segment',
    task: {
      inputs: [input('clip.mp4')],
      outputs: [
        output('part_%03d.mp4', [
          '-c:v',
          'libx264',
          '-preset',
          'ultrafast',
          '-crf',
          '23',
          '-force_key_frames',
          'expr:gte(t,n_forced*3)',
          '-f',
          'segment',
          '-segment_time',
          '3',
          '-reset_timestamps',
          '1',
        ]),
      ],
    },
    // A keyframe forced every 3 s of the 4 s clip: a 3 s part and a 1 s part.
    expect: [{ file: 'part_%03d.mp4', count: 2, format: 'mp4', streams: CLIP_AV, duration: [2.9, 3.2] }],
  },
  {
    id: 'split-with-segment-list',
    source: 'https://nico-lab.net/segment_muxer_with_ffmpeg/',
    category: 'segment',
    task: {
      inputs: [input('gop1s.mp4')],
      outputs: [
        output('seg%03d.mp4', [
          '-map',
          '0',
          '-c',
          'copy',
          '-f',
          'segment',
          '-segment_time',
          '2',
          '-segment_list',
          'seg.csv',
          '-segment_format_options',
          'movflags=+faststart',
          '-reset_timestamps',
          '1',
        ]),
      ],
    },
    expect: [
      { file: 'seg%03d.mp4', count: 4, format: 'mp4', streams: CLIP_AV, duration: [1.9, 2.2] },
      { file: 'seg.csv', text: [/^seg000\.mp4,0\.0+,2\.\d+$/m, /^seg003\.mp4,/m] },
    ],
  },

  // --- generated inputs (-f lavfi) and side files named only in a filter --------------------------
  {
    id: 'silent-audio-track',
    source: 'https://aiqianji.com/blog/topic/320',
    category: 'audio',
    task: {
      inputs: [input('vertical.mp4'), { file_path: 'anullsrc', options: ['-f', 'lavfi'] }],
      outputs: [output('with-silence.mp4', ['-c:v', 'copy', '-shortest'], ['0:v', '1:a'])],
    },
    expect: [{ file: 'with-silence.mp4', streams: [video('h264', 240, 320), audio('aac')], duration: [1.9, 2.3] }],
  },
  {
    id: 'black-video-from-color',
    source: 'https://e-learn.cn/qa/q-529529.html',
    category: 'still-image',
    task: {
      inputs: [{ file_path: 'color=black:s=320x240:d=2', options: ['-f', 'lavfi'] }],
      outputs: [output('black.mp4', [...H264, '-pix_fmt', 'yuv420p'])],
    },
    expect: [{ file: 'black.mp4', streams: [video('h264', 320, 240, 50)], duration: [1.9, 2.1] }],
  },
  {
    id: 'audio-on-black-background',
    source: 'http://lists.mplayerhq.hu/pipermail/ffmpeg-user/2011-October/002600.html',
    category: 'audio',
    task: {
      inputs: [{ file_path: 'color=c=black:s=320x240:r=10', options: ['-f', 'lavfi'] }, input('audio.m4a')],
      outputs: [output('music-video.mp4', [...H264, '-pix_fmt', 'yuv420p', '-c:a', 'copy', '-shortest'], ['0:v', '1:a'])],
    },
    // ffmpeg 5.1's -shortest stops up to 2 s late here, behind the frames x264 holds for lookahead.
    expect: [{ file: 'music-video.mp4', streams: [video('h264', 320, 240), audio('aac')], duration: [3.9, 6.1] }],
  },
  {
    id: 'lut3d-cube-named-in-filter',
    source: `${FILTERS}lut3d-1`,
    category: 'transcode',
    task: { inputs: [input('clip.mp4')], outputs: [output('graded.mp4', ['-vf', 'lut3d=grade.cube', ...H264, '-c:a', 'copy'])] },
    expect: [{ file: 'graded.mp4', streams: CLIP_AV, duration: [3.9, 4.1] }],
  },
  {
    id: 'burn-subtitles-named-in-filter',
    source: `${WIKI}HowToBurnSubtitlesIntoVideo`,
    category: 'subtitles',
    task: { inputs: [input('clip.mp4')], outputs: [output('burnt-named.mp4', ['-vf', 'subtitles=subs.srt', ...H264, '-c:a', 'copy'])] },
    expect: [{ file: 'burnt-named.mp4', streams: CLIP_AV, duration: [3.9, 4.1] }],
  },
];
