// Shared by the split-run suites: the clip they split, the probes that compare two outputs.
import { execa } from 'execa';
import { makeMp4 } from './ffmpeg-fixtures.js';

/** Runs the system ffmpeg (test side only: fixtures and measurements). */
export async function ffmpeg(args: string[]): Promise<{ stdout: string; stderr: string }> {
  const r = await execa('ffmpeg', ['-nostdin', '-hide_banner', '-y', ...args]);
  return { stdout: r.stdout, stderr: r.stderr };
}

/**
 * A 10 s 320x240 25 fps H.264/AAC MP4 with a keyframe every 2 s (what a camera or an earlier
 * encode leaves): testsrc2 moves everywhere, so every frame costs bits as real footage does.
 */
export function makeSplitClip(target: string, seconds = 10, x264?: string[]): Promise<string> {
  return makeMp4(target, { seconds, source: 'testsrc2', gop: 50, ...(x264 ? { x264 } : {}) });
}

let encoders: Promise<string> | undefined;
/** Whether the local ffmpeg has this encoder. */
export async function hasEncoder(name: string): Promise<boolean> {
  encoders ??= execa('ffmpeg', ['-hide_banner', '-encoders']).then((r) => r.stdout);
  return new RegExp(`^\\s*\\S{6}\\s+${name}\\s`, 'm').test(await encoders);
}

export interface StreamFacts {
  type: string;
  codec: string;
  startSec: number;
  /** Video: frames decoded; audio: undefined. */
  frames?: number;
}

export interface MediaFacts {
  streams: StreamFacts[];
  durationSec: number;
  /** The video's frame duration (1 / average frame rate). */
  frameSec: number;
}

/** What ffprobe says of a file (or an HLS playlist), frames counted by decoding. */
export async function mediaFacts(path: string): Promise<MediaFacts> {
  const r = await execa('ffprobe', [
    '-v',
    'error',
    '-count_frames',
    '-show_entries',
    'stream=codec_type,codec_name,start_time,nb_read_frames,avg_frame_rate:format=duration',
    '-of',
    'json',
    path,
  ]);
  const j = JSON.parse(r.stdout) as {
    streams: Array<{ codec_type: string; codec_name: string; start_time: string; nb_read_frames?: string; avg_frame_rate: string }>;
    format: { duration: string };
  };
  const video = j.streams.find((s) => s.codec_type === 'video');
  const [n, d] = (video?.avg_frame_rate ?? '0/1').split('/').map(Number);
  return {
    streams: j.streams.map((s) => ({
      type: s.codec_type,
      codec: s.codec_name,
      startSec: Number(s.start_time),
      ...(s.codec_type === 'video' ? { frames: Number(s.nb_read_frames) } : {}),
    })),
    durationSec: Number(j.format.duration),
    frameSec: n ? d! / n : 0,
  };
}

/** The average PSNR (dB, all planes) of a video against the source, by ffmpeg's psnr filter. */
export async function psnr(path: string, source: string): Promise<number> {
  const { stderr } = await ffmpeg(['-loglevel', 'info', '-i', path, '-i', source, '-lavfi', '[0:v][1:v]psnr', '-f', 'null', '-']);
  const m = /PSNR .* average:([\d.]+|inf)/.exec(stderr);
  if (!m) throw new Error(`no PSNR in ffmpeg's output: ${stderr.slice(-500)}`);
  return m[1] === 'inf' ? Infinity : Number(m[1]);
}
