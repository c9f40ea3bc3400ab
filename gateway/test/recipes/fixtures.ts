// The recipe suite's inputs: small real media made with plain ffmpeg's lavfi sources, plus the
// side files recipes use (subtitles, a font, a caption, a concat list, a 3D LUT). All go into one
// directory, as a user uploads a project's files.
import { execFile } from 'node:child_process';
import { copyFile, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

const ffmpeg = (dir: string, args: string[], name: string) =>
  run('ffmpeg', ['-nostdin', '-hide_banner', '-loglevel', 'error', '-y', ...args, join(dir, name)]);

const H264 = ['-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p'];
const AAC = ['-c:a', 'aac', '-b:a', '96k'];

/** A test pattern of `size` at 25 fps and a stereo tone, `seconds` long. */
const av = (size: string, seconds: number, src = 'testsrc2') => [
  '-f',
  'lavfi',
  '-i',
  `${src}=size=${size}:rate=25:duration=${seconds}`,
  '-f',
  'lavfi',
  '-i',
  `sine=frequency=440:sample_rate=44100:duration=${seconds}`,
  '-filter:a',
  'pan=stereo|c0=c0|c1=c0',
  ...H264,
  ...AAC,
  '-shortest',
];

const SRT = [
  '1',
  '00:00:00,000 --> 00:00:01,500',
  'Hello from the recipe suite',
  '',
  '2',
  '00:00:02,000 --> 00:00:03,500',
  'Second line',
  '',
].join('\n');

/** A 2x2x2 3D LUT (.cube) that warms the picture: red lifted, blue lowered. */
const CUBE = [
  'TITLE "warm"',
  'LUT_3D_SIZE 2',
  '0.05 0.0 0.0',
  '1.0 0.0 0.0',
  '0.05 0.95 0.0',
  '1.0 0.95 0.0',
  '0.05 0.0 0.9',
  '1.0 0.0 0.9',
  '0.05 0.95 0.9',
  '1.0 0.95 0.9',
  '',
].join('\n');

/** The font file recipes upload and name in drawtext (Debian's fonts-dejavu-core). */
export const FONT = '/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf';

/** Writes every fixture into `dir` and returns their names (the first one first). */
export async function makeFixtures(dir: string): Promise<string[]> {
  await mkdir(dir, { recursive: true });
  await Promise.all([
    ffmpeg(dir, av('320x240', 4), 'clip.mp4'),
    ffmpeg(dir, av('320x240', 3, 'testsrc'), 'clip2.mp4'),
    ffmpeg(dir, av('240x320', 2), 'vertical.mp4'),
    // A keyframe every second: parts cut by stream copy (-f segment -c copy) fall on them.
    ffmpeg(dir, [...av('320x240', 7), '-g', '25'], 'gop1s.mp4'),
    // One black second, then a picture with black bars above and below (blackdetect, cropdetect).
    ffmpeg(
      dir,
      [
        '-f',
        'lavfi',
        '-i',
        'color=black:size=320x240:rate=25:duration=1',
        '-f',
        'lavfi',
        '-i',
        'testsrc2=size=320x180:rate=25:duration=2',
        '-filter_complex',
        '[1:v]pad=320:240:0:30:black[p];[0:v][p]concat=n=2:v=1:a=0',
        ...H264,
      ],
      'letterbox.mp4',
    ),
    // Tone, 1.5 s of silence, tone (silencedetect, silenceremove).
    ffmpeg(dir, ['-f', 'lavfi', '-i', "aevalsrc='if(between(t,1,2.5),0,0.5*sin(2*PI*440*t))':s=16000:d=4"], 'talk.wav'),
    ffmpeg(
      dir,
      ['-f', 'lavfi', '-i', 'sine=frequency=330:sample_rate=44100:duration=5', '-ac', '2', '-c:a', 'libmp3lame', '-b:a', '128k'],
      'music.mp3',
    ),
    ffmpeg(dir, ['-f', 'lavfi', '-i', 'sine=frequency=550:sample_rate=44100:duration=4', '-ac', '2', ...AAC], 'audio.m4a'),
    ffmpeg(dir, ['-f', 'lavfi', '-i', 'color=c=red@0.6:size=64x64,format=rgba', '-frames:v', '1'], 'logo.png'),
    ffmpeg(dir, ['-f', 'lavfi', '-i', 'testsrc2=size=640x480', '-frames:v', '1', '-q:v', '3'], 'photo.jpg'),
    ffmpeg(
      dir,
      ['-f', 'lavfi', '-i', 'testsrc=size=160x120:rate=10', '-frames:v', '10', '-start_number', '1', '-q:v', '3'],
      'img_%03d.jpg',
    ),
    ffmpeg(
      dir,
      [
        '-f',
        'lavfi',
        '-i',
        'testsrc2=size=160x120:rate=25:duration=2',
        '-f',
        'lavfi',
        '-i',
        'sine=duration=2',
        '-c:v',
        'libvpx-vp9',
        '-deadline',
        'realtime',
        '-cpu-used',
        '8',
        '-b:v',
        '200k',
        '-c:a',
        'libopus',
        '-shortest',
      ],
      'clip.webm',
    ),
    ffmpeg(dir, ['-f', 'lavfi', '-i', 'testsrc=size=120x90:rate=10:duration=2'], 'anim.gif'),
    writeFile(join(dir, 'subs.srt'), SRT),
    writeFile(join(dir, 'caption.txt'), 'Made by the recipe suite'),
    writeFile(join(dir, 'list.txt'), "ffconcat version 1.0\nfile 'clip.mp4'\nfile 'clip2.mp4'\n"),
    copyFile(FONT, join(dir, 'font.ttf')),
    writeFile(join(dir, 'grade.cube'), CUBE),
  ]);
  const images = Array.from({ length: 10 }, (_, i) => `img_${String(i + 1).padStart(3, '0')}.jpg`);
  return [
    'clip.mp4',
    'clip2.mp4',
    'vertical.mp4',
    'letterbox.mp4',
    'talk.wav',
    'music.mp3',
    'audio.m4a',
    'logo.png',
    'photo.jpg',
    ...images,
    'clip.webm',
    'anim.gif',
    'subs.srt',
    'caption.txt',
    'list.txt',
    'font.ttf',
    'gop1s.mp4',
    'grade.cube',
  ];
}
