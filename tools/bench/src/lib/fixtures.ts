// Inputs made with ffmpeg's own generators, once per run, in the bench's scratch directory.
import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { join } from 'node:path';
import { once } from 'node:events';
import { timeCommand } from './timing.js';

/** 10 s of 1280x720 30 fps H.264 with AAC audio: the sync transcode and probe input. */
export async function clip720(dir: string): Promise<string> {
  const file = join(dir, 'clip720.mp4');
  await timeCommand(
    'ffmpeg',
    [
      ...['-v', 'error', '-y', '-f', 'lavfi', '-i', 'testsrc2=duration=10:size=1280x720:rate=30'],
      ...['-f', 'lavfi', '-i', 'sine=frequency=440:duration=10', '-c:v', 'libx264', '-preset', 'medium'],
      ...['-pix_fmt', 'yuv420p', '-c:a', 'aac', '-shortest', file],
    ],
    dir,
  );
  return file;
}

/** A 64x64 PNG: the input of the tiny async jobs. */
export async function tinyPng(dir: string): Promise<string> {
  const file = join(dir, 'tiny.png');
  await timeCommand('ffmpeg', ['-v', 'error', '-y', '-f', 'lavfi', '-i', 'testsrc2=size=64x64:rate=1', '-frames:v', '1', file], dir);
  return file;
}

/** `bytes` of random data, written in 1 MiB blocks (never held in memory whole). */
export async function randomFile(dir: string, bytes: number): Promise<string> {
  const file = join(dir, 'big.bin');
  const out = createWriteStream(file);
  const block = randomBytes(1 << 20);
  for (let written = 0; written < bytes; written += block.length) {
    const n = Math.min(block.length, bytes - written);
    block.writeUInt32LE(written >>> 20, 0);
    if (!out.write(Buffer.from(block.subarray(0, n)))) await once(out, 'drain');
  }
  out.end();
  await once(out, 'close');
  return file;
}

/** `sec` seconds of 160x120 10 fps H.264: read with `-re`, a job that holds a slot for that long on little CPU. */
export async function pacedClip(dir: string, sec: number): Promise<string> {
  const file = join(dir, `paced-${sec}s.mp4`);
  const source = `testsrc=size=160x120:rate=10:duration=${sec}`;
  await timeCommand('ffmpeg', ['-v', 'error', '-y', '-f', 'lavfi', '-i', source, '-pix_fmt', 'yuv420p', file], dir);
  return file;
}
