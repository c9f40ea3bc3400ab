// What the CLI's suites share: the launcher a user runs, a stack (`npm start`) with an account and
// a key made by the admin CLI, a small clip made with lavfi, and a runner of `media ...`.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { root, spawnStack, type Spawned } from '@media/testkit';

export const execFileP = promisify(execFile);
/** bin/media.mjs, what `npx media` runs. */
export const mediaJs = join(root, 'tools/cli/bin/media.mjs');

/** `npm start`, and the key of a new account on it (named `keyName`). */
export async function stackWithKey(keyName: string): Promise<{ stack: Spawned; key: string }> {
  const stack = await spawnStack();
  const { account_id } = await stack.admin('account', 'create');
  const { key } = await stack.admin('key', 'create', '--account', String(account_id), '--name', keyName);
  return { stack, key: String(key) };
}

/** A small H.264 MP4 (testsrc, 10 fps) at `target`. */
export async function makeClip(target: string, { seconds = 2, size = '160x120' } = {}): Promise<void> {
  await execFileP('ffmpeg', [
    ...['-v', 'error', '-f', 'lavfi', '-i', `testsrc=duration=${seconds}:size=${size}:rate=10`],
    ...['-pix_fmt', 'yuv420p', target],
  ]);
}

/** Runs `media ...` in `cwd` with `env`; never throws: the exit code is part of the answer. */
export async function runMedia(args: string[], env: Record<string, string>, cwd: string) {
  try {
    const { stdout, stderr } = await execFileP(process.execPath, [mediaJs, ...args], { env, cwd });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}
