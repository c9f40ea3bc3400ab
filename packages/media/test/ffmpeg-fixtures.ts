// Test inputs: small real media made with ffmpeg's lavfi sources (test fixtures only: the runner
// never accepts lavfi), and hostile uploads that are really playlists or reference files.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { tempDir } from '@media/testkit';

/** A fresh work directory with in/ and out/; `remove()` deletes it. */
export async function makeWorkDir(): Promise<{ path: string; remove: () => Promise<void> }> {
  const dir = await tempDir('ffmpeg-test-');
  await mkdir(join(dir.path, 'in'));
  return dir;
}

/** Runs the system ffmpeg to build a fixture. */
async function generate(args: string[], target: string): Promise<string> {
  await execa('ffmpeg', ['-nostdin', '-hide_banner', '-loglevel', 'error', '-y', ...args, target]);
  return target;
}

/**
 * H.264/AAC MP4 with a test pattern and a tone; `source` the lavfi pattern (testsrc2 moves
 * everywhere, so every frame costs bits), `gop` the keyframe interval in frames (x264's default),
 * `x264` the encoder's settings (ultrafast: no B-frames).
 */
export function makeMp4(
  target: string,
  {
    seconds = 2,
    size = '320x240',
    rate = 25,
    source = 'testsrc',
    gop,
    x264 = ['-preset', 'ultrafast'],
  }: { seconds?: number; size?: string; rate?: number; source?: string; gop?: number; x264?: string[] } = {},
): Promise<string> {
  return generate(
    [
      '-f',
      'lavfi',
      '-i',
      `${source}=duration=${seconds}:size=${size}:rate=${rate}`,
      '-f',
      'lavfi',
      '-i',
      `sine=duration=${seconds}`,
      '-pix_fmt',
      'yuv420p',
      '-c:v',
      'libx264',
      ...x264,
      ...(gop === undefined ? [] : ['-g', String(gop)]),
      '-c:a',
      'aac',
      '-shortest',
      '-f',
      'mp4',
    ],
    target,
  );
}

/** A tiny H.264 MPEG-TS (the kind of file an HLS playlist lists as a segment). */
export function makeTs(target: string): Promise<string> {
  return generate(
    ['-f', 'lavfi', '-i', 'testsrc=duration=1:size=64x48:rate=10', '-c:v', 'libx264', '-preset', 'ultrafast', '-f', 'mpegts'],
    target,
  );
}

export function makePng(target: string): Promise<string> {
  return generate(['-f', 'lavfi', '-i', 'testsrc=size=64x48', '-frames:v', '1', '-f', 'image2', '-c:v', 'png'], target);
}

export function makeWav(target: string, seconds = 1): Promise<string> {
  return generate(['-f', 'lavfi', '-i', `sine=duration=${seconds}`, '-f', 'wav'], target);
}

// --- hostile uploads -----------------------------------------------------------------------------

/** A playlist (HLS) naming `target`, for an upload called e.g. evil.mp4. */
export function hlsPlaylist(target: string): string {
  return ['#EXTM3U', '#EXT-X-MEDIA-SEQUENCE:0', '#EXTINF:10.0,', target, '#EXT-X-ENDLIST', ''].join('\n');
}

export function ffconcatList(target: string): string {
  return `ffconcat version 1.0\nfile '${target}'\n`;
}

export const SDP_FILE = [
  'v=0',
  'o=- 0 0 IN IP4 127.0.0.1',
  's=x',
  'c=IN IP4 127.0.0.1',
  't=0 0',
  'm=video 5004 RTP/AVP 96',
  'a=rtpmap:96 H264/90000',
  '',
].join('\n');

/**
 * The "HLS in AVI" upload: an AVI with one text stream ('txts') whose first chunk is a GAB2
 * subtitle packet carrying an HLS playlist instead of subtitles. Old ffmpeg opened such a payload
 * with whatever demuxer it probed as (HLS), which then read the files the playlist names.
 */
export function hlsInAvi(payload: string): Buffer {
  const W = 224;
  const H = 160;
  const u16 = (n: number) => le(2, n);
  const u32 = (n: number) => le(4, n);
  const avih = Buffer.concat([40000, 0, 0, 0x10, 25, 0, 1, 0, W, H, 0, 0, 0, 0].map(u32));
  const strh = Buffer.concat([
    Buffer.from('txts'),
    u32(0),
    u32(0),
    u16(0),
    u16(0),
    u32(0),
    u32(1),
    u32(25),
    u32(0),
    u32(25),
    u32(0),
    u32(10000),
    u32(0),
    u16(0),
    u16(0),
    u16(W),
    u16(H),
  ]);
  const strf = Buffer.concat([
    u32(40),
    u32(W),
    u32(H),
    u16(1),
    u16(24),
    Buffer.from('XVID'),
    u32(W * H * 3),
    u32(0),
    u32(0),
    u32(0),
    u32(0),
  ]);
  const text = Buffer.from(payload);
  // GAB2 header: "GAB2\0", version 2, an empty UTF-16 description, flags, payload size.
  const gab2 = Buffer.concat([Buffer.from('GAB2\0'), u16(2), u32(0), u16(0), u32(text.length), text]);
  const hdrl = list('hdrl', [chunk('avih', avih), list('strl', [chunk('strh', strh), chunk('strf', strf)])]);
  const movi = list('movi', [chunk('00tx', gab2), ...Array.from({ length: 25 }, () => chunk('00dc', Buffer.alloc(200)))]);
  const body = Buffer.concat([Buffer.from('AVI '), hdrl, movi]);
  return Buffer.concat([Buffer.from('RIFF'), u32(body.length), body]);
}

function le(bytes: 2 | 4, n: number): Buffer {
  const b = Buffer.alloc(bytes);
  if (bytes === 2) b.writeUInt16LE(n);
  else b.writeUInt32LE(n);
  return b;
}

function chunk(tag: string, data: Buffer): Buffer {
  const pad = data.length % 2 ? Buffer.alloc(1) : Buffer.alloc(0);
  return Buffer.concat([Buffer.from(tag), le(4, data.length), data, pad]);
}

function list(kind: string, parts: Buffer[]): Buffer {
  return chunk('LIST', Buffer.concat([Buffer.from(kind), ...parts]));
}

/**
 * A secret the hostile files point at: a text file with a unique marker, named .ts so even the HLS
 * demuxer's segment-extension check would accept it. Plus /etc/passwd's own lines.
 */
export async function makeSecret(dir: string): Promise<{ path: string; markers: string[] }> {
  const marker = `SECRET-${Math.random().toString(36).slice(2)}-CONTENT`;
  const path = join(dir, 'secret.ts');
  await writeFile(path, `${marker}\n${marker}\n`);
  const passwd = await readFile('/etc/passwd', 'utf8').catch(() => '');
  const passwdLines = passwd.split('\n').filter((l) => l.length >= 12);
  return { path, markers: [marker, ...passwdLines] };
}

/** The markers found in any of the texts or buffers (expected: none). */
export function leaks(markers: string[], ...haystacks: (string | Buffer | undefined)[]): string[] {
  const text = haystacks.map((h) => (h === undefined ? '' : h.toString('latin1'))).join('\n');
  return markers.filter((m) => text.includes(m));
}
