// What the CLI's suites share: the launcher a user runs, a stack (`npm start`) with an account and
// a key made by the admin CLI, a small clip made with lavfi, and a runner of `media ...`.
import { execFile } from 'node:child_process';
import { readFile, stat } from 'node:fs/promises';
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

/** A record of the CLI's resumable uploads (`tus-uploads.json` in the cache directory). */
export type Entry = { uploadUrl: string; metadata: Record<string, string> };

/** The CLI's record of resumable uploads under the cache home `cacheHome` (XDG_CACHE_HOME). */
export const storageFile = (cacheHome: string) => join(cacheHome, 'media-cli', 'tus-uploads.json');

/** The records of resumable uploads under `cacheHome`, none when there is no file. */
export async function entries(cacheHome: string): Promise<Entry[]> {
  try {
    return Object.values(JSON.parse(await readFile(storageFile(cacheHome), 'utf8')) as Record<string, Entry>);
  } catch {
    return [];
  }
}

/** The offset the service has for the upload on `url` (a tus HEAD), or -1 when it has none. */
export async function offsetOf(url: string): Promise<number> {
  const res = await fetch(url, { method: 'HEAD', headers: { 'Tus-Resumable': '1.0.0' } });
  await res.body?.cancel();
  return res.status === 200 ? Number(res.headers.get('upload-offset')) : -1;
}

/** Until when the service keeps the upload on `url` (its `Upload-Expires`, to a tus HEAD). */
export async function expiryOf(url: string): Promise<Date> {
  const res = await fetch(url, { method: 'HEAD', headers: { 'Tus-Resumable': '1.0.0' } });
  await res.body?.cancel();
  return new Date(res.headers.get('upload-expires') ?? NaN);
}

/**
 * Bytes the stack holds for the upload on `url`: its part file (named by the upload's id, the
 * blob key in base64url), read on disk. A tus HEAD would say the same, but it waits for the PATCH
 * in flight to give up the upload's lock, which would cut the upload itself.
 */
export async function partBytes(stack: Spawned, url: string): Promise<number> {
  const id = Buffer.from(decodeURIComponent(new URL(url).pathname.slice('/blob/'.length))).toString('base64url');
  return stat(join(stack.dataDirHere, 'storage', 'tus', id)).then(
    (s) => s.size,
    () => -1,
  );
}

/** Polls `probe` until it gives a value, `stop` holds, or the deadline passes (then undefined). */
export async function poll<T>(probe: () => Promise<T | undefined>, withinMs: number, stop?: () => boolean): Promise<T | undefined> {
  const deadline = Date.now() + withinMs;
  while (Date.now() < deadline && !stop?.()) {
    const v = await probe();
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, 2));
  }
  return undefined;
}
