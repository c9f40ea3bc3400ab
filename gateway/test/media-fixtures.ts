// Small real media made with the system ffmpeg (test fixtures only).
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** An H.264/AAC mp4 of `seconds` at `size`, yuv420p so every player and encoder takes it. */
export async function makeMp4(dir: string, name: string, seconds = 2, size = '320x240'): Promise<Buffer> {
  const path = join(dir, name);
  await run('ffmpeg', [
    '-v',
    'error',
    '-f',
    'lavfi',
    '-i',
    `testsrc=duration=${seconds}:size=${size}:rate=25`,
    '-f',
    'lavfi',
    '-i',
    `sine=frequency=440:duration=${seconds}`,
    '-c:v',
    'libx264',
    '-preset',
    'ultrafast',
    '-pix_fmt',
    'yuv420p',
    '-c:a',
    'aac',
    '-shortest',
    path,
  ]);
  return readFile(path);
}
