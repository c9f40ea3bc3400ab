// The public API, end to end, as the image smoke run (image-smoke.ts) drives it: each step checks
// the status and the fields a user relies on, and throws with the answer when one is off.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface SmokeTarget {
  baseUrl: string;
  /** The admin CLI (tools/admin) with these arguments, its one JSON line parsed. */
  admin(...args: string[]): Promise<any>;
  /** A scratch folder for the test clip. */
  scratch: string;
}

function check(what: string, ok: boolean, answer: unknown): void {
  if (!ok) throw new Error(`${what}: unexpected answer ${JSON.stringify(answer).slice(0, 600)}`);
  console.log(`ok  ${what}`);
}

export async function driveApi({ baseUrl, admin, scratch }: SmokeTarget): Promise<void> {
  const account = await admin('account', 'create');
  check('admin account create (in the Auth container)', /^acc_/.test(account.account_id), account);
  const key = await admin('key', 'create', '--account', account.account_id, '--name', 'smoke');
  check('admin key create', typeof key.authorization === 'string', key);

  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(baseUrl + path, {
      method,
      headers: { authorization: key.authorization, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    const json = res.headers.get('content-type')?.includes('json') ? JSON.parse(text) : text;
    if (!/^req_[a-z0-9]+$/.test(res.headers.get('x-request-id') ?? '')) throw new Error(`${method} ${path}: no X-Request-Id`);
    return { status: res.status, body: json };
  };

  const unauthenticated = await fetch(`${baseUrl}/account`);
  check('GET /account without a key: 401', unauthenticated.status === 401, unauthenticated.status);
  const me = await call('GET', '/account');
  check('GET /account: 200', me.status === 200 && me.body.account_id === account.account_id, me);

  const clip = join(scratch, 'clip.mp4');
  execFileSync('ffmpeg', [
    '-v',
    'error',
    '-f',
    'lavfi',
    '-i',
    'testsrc=size=320x240:rate=25:duration=2',
    '-pix_fmt',
    'yuv420p',
    '-y',
    clip,
  ]);
  const bytes = readFileSync(clip);
  const reg = await call('POST', '/file', { file_name: 'clip.mp4' });
  check('POST /file: an upload instruction', reg.status === 200 && reg.body.upload?.method === 'PUT', reg);
  const put = await fetch(reg.body.upload.url, { method: 'PUT', headers: reg.body.upload.headers, body: bytes });
  check('PUT to the signed upload URL', put.ok, put.status);
  const path = reg.body.file.file_path as string;
  const info = await call('GET', `/file/${path}`);
  check(
    'GET /file: size and type',
    info.status === 200 && info.body.file_info.file_size === bytes.length && info.body.file_info.file_type === 'video/mp4',
    info,
  );

  // An input option and text drawn with the image's own fonts (FONT_DIRS): no font file uploaded.
  const thumbTask = {
    inputs: [{ file_path: path, options: ['-ss', '0.5'] }],
    outputs: [{ file: 'thumb.png', options: ['-vf', "drawtext=text='smoke':fontsize=20", '-frames:v', '1'] }],
  };
  const sync = await call('POST', '/ffmpeg/process', { task: thumbTask });
  check(
    'POST /ffmpeg/process (Jobs image, ffmpeg, system fonts): 200 and charged',
    sync.status === 200 && sync.body.result?.length === 1 && sync.body.amount_usd > 0,
    sync,
  );
  const png = Buffer.from(await (await fetch(sync.body.result[0].download_url)).arrayBuffer());
  check(
    'the output downloads as a PNG of the stated size',
    png.subarray(1, 4).toString() === 'PNG' && png.length === sync.body.result[0].size_bytes,
    png.length,
  );

  const probe = await call('POST', '/ffprobe/analyze', {
    file_path: path,
    probe: { format: ['duration'], streams: ['codec_name', 'width'] },
  });
  check(
    'POST /ffprobe/analyze (Probe image, ffprobe)',
    probe.status === 200 && probe.body.result?.streams?.[0]?.codec_name === 'h264' && probe.body.result.streams[0].width === 320,
    probe,
  );

  const queued = await call('POST', '/ffmpeg/process/async', {
    task: {
      inputs: [{ file_path: path }],
      outputs: [{ file: 'small.mp4', options: ['-vf', 'scale=160:-2', '-c:v', 'libx264', '-preset', 'veryfast'] }],
    },
  });
  check('POST /ffmpeg/process/async: 202 pending', queued.status === 202 && queued.body.status === 'pending', queued);
  let job: { status: number; body: any } | undefined;
  for (let i = 0; i < 120; i++) {
    job = await call('GET', `/job/${queued.body.job_id}`);
    if (['completed', 'failed'].includes(job.body.status)) break;
    await new Promise((r) => setTimeout(r, 500));
  }
  check(
    'the async job completes with its output',
    job?.body.status === 'completed' && job.body.result?.[0]?.file_name === 'small.mp4',
    job,
  );

  // Charges reach Billing over NATS a moment after the answers.
  let usage: { status: number; body: any } | undefined;
  for (let i = 0; i < 40; i++) {
    usage = await call('GET', '/account/usage?format=json');
    if (usage.body.rows?.length >= 3) break;
    await new Promise((r) => setTimeout(r, 250));
  }
  const charged = new Set((usage?.body.rows ?? []).map((r: { request_id: string }) => r.request_id));
  check(
    'GET /account/usage: one row per charged request',
    usage?.body.rows.length === 3 && [sync.body.request_id, probe.body.request_id, queued.body.job_id].every((id) => charged.has(id)),
    usage,
  );
}

/**
 * The web console's pod: ready (its backends, Auth's admin listener among them, answer), a login
 * link made in the Auth container asks, then signs in, and the Keys page lists the account's key. The link
 * names the console's public address (config.consoleUrl); its path is asked of the pod here.
 */
export async function driveConsole(consoleUrl: string, opsUrl: string, admin: SmokeTarget['admin']): Promise<void> {
  const ready = await fetch(`${opsUrl}/readyz`);
  check('console /readyz: 200 (Auth admin, Jobs, Storage, Billing answer)', ready.status === 200, await ready.text());
  const { account_id: accountId } = await admin('account', 'create');
  const key = await admin('key', 'create', '--account', accountId, '--name', 'console-smoke');
  const link = await admin('account', 'login-link', accountId);
  check('admin account login-link: a URL on config.consoleUrl', /^https:\/\/console\.example\.com\/login\?token=/.test(link.url), link);
  const { pathname, search } = new URL(link.url);
  // The link asks first (issue 39): a page naming the account, whose POST signs in.
  const ask = await fetch(consoleUrl + pathname + search, { redirect: 'manual' });
  const askPage = await ask.text();
  const csrfCookie = ask.headers.get('set-cookie')?.split(';')[0] ?? '';
  check(
    'console: the login link asks first (200, "Sign in as account ...?", a __Host- CSRF cookie)',
    ask.status === 200 && askPage.includes(`Sign in as account ${accountId}?`) && csrfCookie.startsWith('__Host-csrf='),
    { status: ask.status, headers: Object.fromEntries(ask.headers) },
  );
  const form = new URLSearchParams({
    _csrf: /name="_csrf" value="([^"]+)"/.exec(askPage)?.[1] ?? '',
    token: new URLSearchParams(search).get('token') ?? '',
  });
  const signIn = await fetch(`${consoleUrl}/login`, {
    method: 'POST',
    redirect: 'manual',
    headers: { cookie: csrfCookie, 'content-type': 'application/x-www-form-urlencoded' },
    body: form,
  });
  const cookie = signIn.headers.get('set-cookie')?.split(';')[0];
  check(
    'console: confirming signs in (303 to /keys, an HttpOnly Secure __Host- session cookie)',
    signIn.status === 303 &&
      signIn.headers.get('location') === '/keys' &&
      cookie?.startsWith('__Host-media_console=') === true &&
      /HttpOnly/i.test(signIn.headers.get('set-cookie') ?? '') &&
      /Secure/i.test(signIn.headers.get('set-cookie') ?? ''),
    { status: signIn.status, headers: Object.fromEntries(signIn.headers) },
  );
  const keys = await fetch(`${consoleUrl}/keys`, { headers: { cookie: cookie ?? '' } });
  const page = await keys.text();
  check(
    'console: the Keys page lists the key made for the account',
    keys.status === 200 && page.includes('console-smoke') && page.includes(key.key_id),
    keys.status,
  );
  const again = await fetch(consoleUrl + pathname + search, { redirect: 'manual' });
  check('console: the link works once (401 once used)', again.status === 401, again.status);
}
