// For the tests of a spawned `npm start`: an account with a key, one clip uploaded, and a caller
// that keeps the key across a restart (the base URL changes, the data does not); and a webhook
// receiver the stack may deliver to.
import { execFile } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startHttpsServer, waitFor, type Spawned } from '@media/testkit';

const run = promisify(execFile);

export type Call = (
  base: string,
  method: string,
  path: string,
  body?: unknown,
  headers?: Record<string, string>,
) => Promise<{ status: number; body: Record<string, any>; headers: Headers }>;

/** `lavfi` is the clip's testsrc source, e.g. 'testsrc=duration=6:size=320x240:rate=25'. */
export async function accountWithClip(stack: Spawned, lavfi: string): Promise<{ call: Call; dirId: string }> {
  const clipPath = join(stack.dataDir, 'clip.mp4');
  // -y: a second account on the same stack makes the clip again (ffmpeg would ask on stdin).
  await run('ffmpeg', [
    '-y',
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
  const call: Call = async (base, method, path, body, headers = {}) => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { authorization: String(authorization), 'content-type': 'application/json', ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Record<string, any>, headers: res.headers };
  };
  const reg = await call(stack.baseUrl, 'POST', '/file', { file_name: 'clip.mp4' });
  await fetch(reg.body.upload.url, { method: 'PUT', headers: reg.body.upload.headers, body: await readFile(clipPath) });
  return { call, dirId: reg.body.file.dir_id as string };
}

/**
 * The usage rows of `jobId`, counted once nothing can charge it again: no run of the account in
 * flight, and the bus drained past its charge (billing consumes in order: a marker job run now is
 * charged after anything published before it).
 */
export async function usageRowsOf(call: Call, base: string, dirId: string, jobId: string): Promise<Record<string, any>[]> {
  const body = async (method: string, path: string, payload?: unknown) => (await call(base, method, path, payload)).body;
  await waitFor('no run in flight', async () => (await body('GET', '/account')).jobs.active === 0, 30_000);
  const marker = await body('POST', '/ffmpeg/process', {
    task: { inputs: [{ file_path: `${dirId}/clip.mp4` }], outputs: [{ file: 'marker.png', options: ['-frames:v', '1'] }] },
  });
  if (!marker.ok) throw new Error(`the marker job failed: ${JSON.stringify(marker)}`);
  const rowsOf = (usage: Record<string, any>, id: string): Record<string, any>[] =>
    usage.rows.filter((r: { request_id: string }) => r.request_id === id);
  const usage = await waitFor(
    'the marker job charged',
    async () => {
      const u = await body('GET', '/account/usage?format=json');
      return rowsOf(u, marker.request_id).length > 0 && u;
    },
    30_000,
  );
  return rowsOf(usage, jobId);
}

/**
 * An HTTPS webhook receiver on 127.0.0.2 answering 204, with the `env` that lets a stack deliver
 * to it (the address counted as public, its CA trusted; the CA file is written in `dir`).
 */
export async function webhookReceiver(dir: string) {
  const delivered: string[] = [];
  const server = await startHttpsServer({
    host: '127.0.0.2',
    handler: (req, res) => {
      req.resume();
      req.on('end', () => {
        delivered.push(String(req.headers['webhook-id']));
        res.writeHead(204).end();
      });
    },
  });
  await writeFile(join(dir, 'ca.pem'), server.ca);
  return {
    url: server.url,
    delivered,
    env: { URL_ALLOWLIST_CIDRS: '127.0.0.2/32', URL_CA_FILE: join(dir, 'ca.pem') },
    stop: () => server.stop(),
  };
}
