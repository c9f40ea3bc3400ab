// The load's inputs, made once with ffmpeg's lavfi sources: tiny, so a 2-core machine keeps up.
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface Inputs {
  /** A 1-second 160x120 clip: the sync and async tasks' and the probes' input. */
  clip: Buffer;
  /** A 2-second clip at 5 fps: the slow jobs of the job-limit probe (paced with the realtime filter). */
  slow: Buffer;
}

async function lavfi(file: string, seconds: number, rate: number): Promise<Buffer> {
  await run('ffmpeg', [
    '-v',
    'error',
    '-f',
    'lavfi',
    '-i',
    `testsrc=size=160x120:rate=${rate}:duration=${seconds}`,
    '-pix_fmt',
    'yuv420p',
    '-y',
    file,
  ]);
  return readFile(file);
}

export async function makeInputs(dir: string): Promise<Inputs> {
  const [clip, slow] = await Promise.all([lavfi(join(dir, 'clip.mp4'), 1, 10), lavfi(join(dir, 'slow.mp4'), 2, 5)]);
  return { clip, slow };
}
