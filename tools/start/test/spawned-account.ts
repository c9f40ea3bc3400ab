// For the kill -9 tests: an account with a key on a spawned `npm start`, one clip uploaded, and a
// caller that keeps the key across the restart (the base URL changes, the data does not).
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Spawned } from '@media/testkit';

const run = promisify(execFile);

export type Call = (
  base: string,
  method: string,
  path: string,
  body?: unknown,
) => Promise<{ status: number; body: Record<string, any>; headers: Headers }>;

/** `lavfi` is the clip's testsrc source, e.g. 'testsrc=duration=6:size=320x240:rate=25'. */
export async function accountWithClip(stack: Spawned, lavfi: string): Promise<{ call: Call; dirId: string }> {
  const clipPath = join(stack.dataDir, 'clip.mp4');
  await run('ffmpeg', [
    '-v',
    'error',
    '-f',
    'lavfi',
    '-i',
    lavfi,
    '-c:v',
    'libx264',
    '-preset',
    'ultrafast',
    '-pix_fmt',
    'yuv420p',
    clipPath,
  ]);
  const { account_id } = await stack.admin('account', 'create');
  const { authorization } = await stack.admin('key', 'create', '--account', String(account_id), '--name', 'k');
  const call: Call = async (base, method, path, body) => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { authorization: String(authorization), 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Record<string, any>, headers: res.headers };
  };
  const reg = await call(stack.baseUrl, 'POST', '/file', { file_name: 'clip.mp4' });
  await fetch(reg.body.upload.url, { method: 'PUT', headers: reg.body.upload.headers, body: await readFile(clipPath) });
  return { call, dirId: reg.body.file.dir_id as string };
}
