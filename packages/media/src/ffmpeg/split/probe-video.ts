// What the split run reads of its input with ffprobe (in the sandbox, as every probe): the
// streams and start time, then the video's packets with their keyframe flags.
import type { FfmpegInput } from '../argv.js';
import { runFfprobe, type RunFfprobeOptions } from '../run-ffprobe.js';
import type { VideoPacket } from './parts.js';

type ProbeRun = Omit<RunFfprobeOptions, 'input' | 'args'>;

export interface InputLayout {
  /** How many video streams the input has (cover pictures count: ffmpeg may pick one). */
  videoStreams: number;
  /** The input's start time (ffmpeg's seek and timestamps are relative to it), 0 when unknown. */
  startSec: number;
  durationSec: number | undefined;
}

const num = (v: unknown): number | undefined => {
  const n = typeof v === 'string' || typeof v === 'number' ? Number(v) : NaN;
  return Number.isFinite(n) ? n : undefined;
};

export async function probeLayout(run: ProbeRun, input: FfmpegInput): Promise<InputLayout> {
  const { json } = await runFfprobe({ ...run, input, args: ['-show_entries', 'stream=codec_type:format=start_time,duration'] });
  const j = json as { streams?: Array<{ codec_type?: string }>; format?: { start_time?: string; duration?: string } };
  return {
    videoStreams: (j.streams ?? []).filter((s) => s.codec_type === 'video').length,
    startSec: num(j.format?.start_time) ?? 0,
    durationSec: num(j.format?.duration),
  };
}

/** The packets of the first video stream; undefined if one has no pts. */
export async function probeVideoPackets(run: ProbeRun, input: FfmpegInput): Promise<VideoPacket[] | undefined> {
  const { json } = await runFfprobe({ ...run, input, args: ['-select_streams', 'v:0', '-show_entries', 'packet=pts_time,flags'] });
  const packets = (json as { packets?: Array<{ pts_time?: string; flags?: string }> }).packets ?? [];
  const out: VideoPacket[] = [];
  for (const p of packets) {
    const pts = num(p.pts_time);
    if (pts === undefined) return undefined;
    out.push({ pts, key: (p.flags ?? '').includes('K') });
  }
  return out;
}
