// The split-encode benchmarks' task (issue 42), one home for both of them (split-encode.ts,
// split-scale-out.ts): the 2-minute 720p input, the codecs each row encodes with, bare ffmpeg's
// command line, and the async job that runs the same task, timed by its own created_at and
// completed_at.
import { join } from 'node:path';
import type { Api } from './service.js';
import { timeCommand } from './timing.js';

export const CLIP_SEC = 120;
export const CODECS = {
  x264: ['-c:v', 'libx264', '-preset', 'medium', '-crf', '23', '-c:a', 'aac'],
  vp9: ['-c:v', 'libvpx-vp9', '-b:v', '2M', '-deadline', 'good', '-cpu-used', '4', '-c:a', 'libopus'],
} as const;
export type Codec = keyof typeof CODECS;
export const CODEC_NAMES = Object.keys(CODECS) as Codec[];
export const EXT = { x264: 'mp4', vp9: 'webm' } as const;
/** How a row names the encode. */
export const LABEL = { x264: 'x264 medium', vp9: 'VP9 -cpu-used 4' } as const;
/** How long a job may take before the benchmark gives up on it, against bare ffmpeg's time. */
const JOB_DEADLINE = (bareMs: number) => 4 * bareMs + 120_000;
const POLL_MS = 1000;

/** 2 minutes of 1280x720 30 fps H.264 (keyframes every 250 frames) with AAC: the split input. */
export async function longClip(dir: string): Promise<string> {
  const file = join(dir, 'long720.mp4');
  await timeCommand(
    'ffmpeg',
    [
      ...['-v', 'error', '-y', '-f', 'lavfi', '-i', `testsrc2=duration=${CLIP_SEC}:size=1280x720:rate=30`],
      ...['-f', 'lavfi', '-i', `sine=frequency=440:duration=${CLIP_SEC}`, '-c:v', 'libx264', '-preset', 'veryfast'],
      ...['-pix_fmt', 'yuv420p', '-c:a', 'aac', '-shortest', file],
    ],
    dir,
  );
  return file;
}

/** Bare ffmpeg's arguments for the task: `input` encoded with `codec` into `out`. */
export const bareArgs = (input: string, codec: Codec, out: string): string[] => [
  ...['-nostdin', '-loglevel', 'error', '-y', '-i', input],
  ...CODECS[codec],
  out,
];

export interface SplitJob {
  /** GET /job/{id} once completed: `split_parts`, `result[0].download_url`. */
  job: Record<string, any>;
  /** Its created_at to completed_at, ms. */
  serviceMs: number;
}

/**
 * Runs the task on the uploaded `filePath` as an async job of a fresh account (`call`'s key) and
 * waits for its end, calling `onPoll` every poll; a failed job, or one still running after
 * `JOB_DEADLINE(bareMs)`, throws.
 */
export async function runSplitJob(
  call: Api,
  filePath: string,
  codec: Codec,
  bareMs: number,
  onPoll?: () => Promise<void>,
): Promise<SplitJob> {
  const { job_id } = await call('POST', '/ffmpeg/process/async', {
    task: { inputs: [{ file_path: filePath }], outputs: [{ file: `out.${EXT[codec]}`, options: [...CODECS[codec]] }] },
  });
  const deadline = Date.now() + JOB_DEADLINE(bareMs);
  let job: Record<string, any>;
  for (;;) {
    await onPoll?.();
    job = await call('GET', `/job/${job_id}`);
    if (job.status === 'completed' || job.status === 'failed') break;
    if (Date.now() > deadline) throw new Error(`split job ${job_id} still ${job.status} after ${JOB_DEADLINE(bareMs) / 1000} s`);
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
  if (job.status !== 'completed') throw new Error(`split job ${job_id} ${job.status}: ${job.error}`);
  // The job's own times are in its summary (GET /jobs), not in GET /job/{id}.
  const { jobs } = await call('GET', '/jobs?limit=1');
  if (jobs[0]?.id !== job_id) throw new Error(`GET /jobs listed ${jobs[0]?.id}, not the job ${job_id}`);
  return { job, serviceMs: Date.parse(jobs[0].completed_at) - Date.parse(jobs[0].created_at) };
}
