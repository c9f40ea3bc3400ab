// The split job's output against bare ffmpeg's, as ffprobe reads them: the same streams, the same
// number of video frames (packets: counted without decoding), durations and start times within
// one frame. A join that lost or doubled a part must not pass as a fast figure.
import { execFile } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface MediaSummary {
  /** `video:h264`, `audio:aac`..., in stream order. */
  streams: string[];
  videoFrames: number;
  /** One video frame, s (from its average frame rate). */
  frameSec: number;
  durationSec: number;
  videoStartSec: number;
  audioStartSec: number | undefined;
}

export async function mediaSummary(file: string): Promise<MediaSummary> {
  const { stdout } = await run('ffprobe', [
    ...['-v', 'error', '-count_packets', '-show_entries'],
    ...['stream=codec_type,codec_name,nb_read_packets,start_time,avg_frame_rate:format=duration', '-of', 'json', file],
  ]);
  const info = JSON.parse(stdout) as {
    streams: { codec_type: string; codec_name: string; nb_read_packets?: string; start_time?: string; avg_frame_rate?: string }[];
    format: { duration?: string };
  };
  const video = info.streams.find((s) => s.codec_type === 'video');
  if (!video) throw new Error(`${file}: no video stream`);
  const audio = info.streams.find((s) => s.codec_type === 'audio');
  const [num, den] = (video.avg_frame_rate ?? '0/1').split('/').map(Number);
  return {
    streams: info.streams.map((s) => `${s.codec_type}:${s.codec_name}`),
    videoFrames: Number(video.nb_read_packets),
    frameSec: num && den ? den / num : 0,
    durationSec: Number(info.format.duration),
    videoStartSec: Number(video.start_time ?? 0),
    audioStartSec: audio ? Number(audio.start_time ?? 0) : undefined,
  };
}

/** How `split` differs from `bare` beyond one frame; empty when it does not. */
export function outputDifferences(bare: MediaSummary, split: MediaSummary): string[] {
  const out: string[] = [];
  const frame = bare.frameSec || 1 / 30;
  const near = (a: number | undefined, b: number | undefined) =>
    a === b || (a !== undefined && b !== undefined && Math.abs(a - b) <= frame + 1e-6);
  if (split.streams.join(',') !== bare.streams.join(',')) out.push(`streams ${split.streams.join(',')} (bare ${bare.streams.join(',')})`);
  if (split.videoFrames !== bare.videoFrames) out.push(`${split.videoFrames} video frames (bare ${bare.videoFrames})`);
  if (!near(split.durationSec, bare.durationSec)) out.push(`duration ${split.durationSec} s (bare ${bare.durationSec} s)`);
  if (!near(split.videoStartSec, bare.videoStartSec)) out.push(`video start ${split.videoStartSec} s (bare ${bare.videoStartSec} s)`);
  if (!near(split.audioStartSec, bare.audioStartSec)) out.push(`audio start ${split.audioStartSec} s (bare ${bare.audioStartSec} s)`);
  return out;
}

/** Streams a GET of `url` (a signed download URL) into `file`. */
export async function download(url: string, file: string): Promise<void> {
  const res = await fetch(url);
  if (!res.ok || !res.body) throw new Error(`GET ${url} -> ${res.status}`);
  await pipeline(Readable.fromWeb(res.body as import('node:stream/web').ReadableStream), createWriteStream(file));
}

/** Downloads the job's output to `splitFile` and compares it with bare ffmpeg's `bareFile`; both are removed after. */
export async function checkAgainstBare(downloadUrl: string, splitFile: string, bareFile: string): Promise<string[]> {
  try {
    await download(downloadUrl, splitFile);
    return outputDifferences(await mediaSummary(bareFile), await mediaSummary(splitFile));
  } finally {
    await Promise.all([rm(splitFile, { force: true }), rm(bareFile, { force: true })]);
  }
}
