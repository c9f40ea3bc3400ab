// What a user does on a fresh machine: npm start, then curl and the admin CLI (the built
// entrypoints, as separate processes).
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { adminJs, run, spawnStack, stackEnv, startJs, type Spawned } from '@media/testkit';

let stack: Spawned;
const consoleUrl = () => /admin listener:\s+(\S+)/.exec(stack.banner)![1]!;
beforeAll(async () => {
  stack = await spawnStack();
});
afterAll(() => stack?.stop());

test('curl without a key -> 401 with X-Request-Id; with a console key -> the Account', async () => {
  const { baseUrl, admin } = stack;
  const anon = await fetch(`${baseUrl}/account`);
  expect(anon.status).toBe(401);
  expect(anon.headers.get('x-request-id')).toMatch(/^req_/);
  expect(await anon.json()).toEqual({ ok: false, error: 'Authorization Header Required' });

  const { account_id } = await admin('account', 'create');
  expect(account_id).toMatch(/^acc_[a-z0-9]{20}$/);
  const created = await admin('key', 'create', '--account', String(account_id), '--name', 'laptop');
  expect(created).toMatchObject({
    key_id: expect.stringMatching(/^key_[a-z0-9]+$/),
    key: expect.stringMatching(/^mk_[A-Za-z0-9]{40}$/),
    authorization: `Basic ${created.key}`,
  });

  const auth = { headers: { authorization: String(created.authorization) } };
  const res = await fetch(`${baseUrl}/account`, auth);
  expect(res.status).toBe(200);
  expect(await res.json()).toMatchObject({ ok: true, account_id, plan: 'pay-as-you-go', jobs: { active: 0, available_slots: 50 } });
  // The banner names where signed URLs point (curl users need that port).
  const signedBase = /signed URLs:\s+(\S+)/.exec(stack.banner)![1]!;
  const reg = await fetch(`${baseUrl}/file`, {
    method: 'POST',
    headers: { ...auth.headers, 'content-type': 'application/json' },
    body: '{"file_name":"a.mp4"}',
  });
  expect(((await reg.json()) as { upload: { url: string } }).upload.url.startsWith(`${signedBase}/`)).toBe(true);

  // The webhook secret, and a rotation whose old secret signs beside the new one for an hour.
  const shown = await admin('account', 'webhook-secret', String(account_id));
  expect(shown).toEqual({ account_id, webhook_secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/), previous_valid_until: null });
  const rotated = await admin('account', 'webhook-secret', String(account_id), '--rotate', '--grace-hours', '1');
  expect(rotated.webhook_secret).not.toBe(shown.webhook_secret);
  expect(Math.abs(Date.parse(String(rotated.previous_valid_until)) - Date.now() - 3_600_000)).toBeLessThan(60_000);
  expect(await admin('account', 'webhook-secret', String(account_id))).toEqual(rotated);

  const listed = await admin('key', 'list', '--account', String(account_id));
  expect(listed).toEqual({ keys: [expect.objectContaining({ key_id: created.key_id, name: 'laptop', revoked_at: null })] });
  expect(JSON.stringify(listed)).not.toContain(String(created.key));

  expect(await admin('account', 'set-status', String(account_id), 'suspended')).toEqual({ account_id, status: 'suspended' });
  expect((await fetch(`${baseUrl}/account`, auth)).status).toBe(403);
  await admin('account', 'set-status', String(account_id), 'active');
  expect(await admin('key', 'revoke', String(created.key_id))).toMatchObject({ key_id: created.key_id, revoked_at: expect.any(String) });
  expect((await fetch(`${baseUrl}/account`, auth)).status).toBe(401);
});

test('the internal gRPC and console listeners take free loopback ports, named in the banner', () => {
  const services = /services:\s+(.+)/.exec(stack.banner)![1]!;
  const urls = Object.fromEntries(services.split(', ').map((s) => s.split(' ') as [string, string]));
  expect(Object.keys(urls)).toEqual(['auth', 'storage', 'jobs', 'probe', 'billing']);
  const ports = [...Object.values(urls), consoleUrl()].map((u) => {
    const url = new URL(u);
    expect(url.hostname).toBe('127.0.0.1');
    return Number(url.port);
  });
  expect(new Set(ports).size).toBe(6);
  // Not the fixed defaults, which lie in the ephemeral range (the spawned env sets none of them).
  expect(ports).not.toEqual([50051, 50052, 50053, 50054, 50055, 50061]);
});

test('the API reference: Swagger UI and the OpenAPI document on their own listener, named in the banner', async () => {
  const docsUrl = /API reference:\s+(\S+)/.exec(stack.banner)![1]!;
  expect(new URL(docsUrl).port).not.toBe(new URL(stack.baseUrl).port);
  const page = await fetch(`${docsUrl}/`);
  expect(page.status).toBe(200);
  expect(page.headers.get('content-type')).toMatch(/^text\/html/);
  const html = await page.text();
  // Every script and style the page loads is served by the listener itself (no CDN).
  const assets = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
  expect(assets.length).toBeGreaterThan(2);
  for (const asset of assets) {
    expect(asset).not.toMatch(/^(https?:)?\/\//);
    const res = await fetch(new URL(asset, `${docsUrl}/`));
    expect(res.status).toBe(200);
    expect((await res.arrayBuffer()).byteLength).toBeGreaterThan(0);
  }
  const served = await fetch(`${docsUrl}/openapi.json`);
  expect(served.status).toBe(200);
  const committed = JSON.parse(await readFile(new URL('../../../docs/openapi.json', import.meta.url), 'utf8'));
  // The committed document, with this gateway as its server.
  expect(await served.json()).toEqual({ ...committed, servers: [{ url: stack.baseUrl }] });
  // Not on the gateway's paths.
  for (const path of ['/openapi.json', '/json', '/documentation/json']) expect((await fetch(`${stack.baseUrl}${path}`)).status).toBe(404);
});

test('the admin CLI reports bad usage as JSON on stderr with exit code 1', async () => {
  await expect(run(process.execPath, [adminJs, 'account', 'set-status', 'acc_x', 'sleepy'], { env: stack.env })).rejects.toMatchObject({
    code: 1,
    stderr: expect.stringContaining('"error":"status must be one of active, no_card, payment_failed, suspended, closed"'),
  });
  await expect(run(process.execPath, [adminJs, 'key', 'revoke', 'key_nope'], { env: stack.env })).rejects.toMatchObject({
    code: 1,
    stderr: expect.stringContaining('Key not found'),
  });
});

test('a second npm start on the same DATA_DIR is refused, and the first keeps working', async () => {
  const second = spawnStack({}, stack.dataDir);
  second.then(
    (s) => s.kill(),
    () => undefined,
  ); // should it start after all, it is not left running
  await expect(second).rejects.toThrow(
    /^exited 1:\nmedia-service: failed to start: \S+ is in use by another process \(pid \d+\): stop it first, or give this one another DATA_DIR\. One process per data directory\.\n$/,
  );
  // Refused at once, not after a wait: a live pid on this host is never waited for (the lock's
  // waits are counted in packages/docstore/test/embedded-process.test.ts).
  expect((await fetch(`${stack.baseUrl}/account`)).status).toBe(401);
  expect(await stack.admin('account', 'create')).toMatchObject({ account_id: expect.stringMatching(/^acc_/) }); // its console address was not overwritten
});

test('the README as written: the default relative DATA_DIR (./.data), a clip uploaded, a thumbnail made, a probe run', async () => {
  // DATA_DIR is relative to where npm start runs; ffmpeg runs in its work directory, so every
  // path is made absolute at start (a relative one failed every task with an internal error).
  const cwd = await mkdtemp(join(tmpdir(), 'media-cwd-'));
  const rel = await spawnStack({ DATA_DIR: './.data' }, undefined, cwd);
  try {
    expect(existsSync(join(cwd, '.data', 'jobs', 'LOCK'))).toBe(true);
    const { account_id } = await rel.admin('account', 'create');
    const { authorization } = await rel.admin('key', 'create', '--account', String(account_id), '--name', 'k');
    const headers = { authorization: String(authorization), 'content-type': 'application/json' };
    await run('ffmpeg', [
      '-v',
      'error',
      '-f',
      'lavfi',
      '-i',
      'testsrc=duration=3:size=320x240:rate=25',
      '-pix_fmt',
      'yuv420p',
      join(cwd, 'in.mp4'),
    ]);
    const reg = (await (await fetch(`${rel.baseUrl}/file`, { method: 'POST', headers, body: '{"file_name":"in.mp4"}' })).json()) as {
      upload: { url: string };
      file: { dir_id: string };
    };
    expect((await fetch(reg.upload.url, { method: 'PUT', body: await readFile(join(cwd, 'in.mp4')) })).status).toBe(200);
    const task = {
      task: {
        inputs: [{ file_path: `${reg.file.dir_id}/in.mp4` }],
        outputs: [{ file: 'thumb.png', options: ['-ss', '1', '-frames:v', '1'] }],
      },
    };
    const res = await fetch(`${rel.baseUrl}/ffmpeg/process`, { method: 'POST', headers, body: JSON.stringify(task) });
    const body = (await res.json()) as { result: { file_name: string; download_url: string }[] };
    expect({ status: res.status, files: body.result?.map((r) => r.file_name) }).toEqual({ status: 200, files: ['thumb.png'] });
    expect((await fetch(body.result[0]!.download_url)).status).toBe(200);
    const probe = await fetch(`${rel.baseUrl}/ffprobe/analyze`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ file_path: `${reg.file.dir_id}/in.mp4` }),
    });
    expect(probe.status).toBe(200);
  } finally {
    await rel.stop();
    await rm(cwd, { recursive: true, force: true });
  }
}, 60_000);

test('Ctrl-C stops everything; the admin CLI then says where it looked', async () => {
  stack.proc.kill('SIGINT');
  const code = await new Promise((r) => stack.proc.once('exit', r));
  expect(code).toBe(0);
  await expect(fetch(`${stack.baseUrl}/account`)).rejects.toThrow();
  // The recorded console address went with it (the next run's port differs).
  expect(existsSync(join(stack.dataDir, 'run', 'auth-admin-url'))).toBe(false);
  const failed = await run(process.execPath, [adminJs, 'account', 'create'], { env: { ...stack.env, AUTH_ADMIN_URL: consoleUrl() } }).then(
    () => undefined,
    (err: { code: number; stderr: string }) => err,
  );
  expect(failed?.code).toBe(1);
  expect(JSON.parse(failed!.stderr)).toEqual({
    error: expect.stringMatching(
      /^Cannot reach the console listener at http:\/\/127\.0\.0\.1:\d+, from AUTH_ADMIN_URL \(connect ECONNREFUSED .+\)\. Is the service running\? Run this with the DATA_DIR npm start uses/,
    ),
  });
});

test('invalid configuration: one clear message naming every variable, exit 1', async () => {
  const bad = {
    ...stackEnv('/tmp/unused'),
    PORT: 'eighty',
    KEY_PREFIX: 'has_underscore',
    URL_ALLOWLIST_CIDRS: 'abc',
    URL_CA_FILE: '/nonexistent.pem',
  };
  const failed = await run(process.execPath, [startJs], { env: bad }).then(
    () => undefined,
    (err: { code: number; stderr: string }) => err,
  );
  expect(failed?.code).toBe(1);
  expect(failed?.stderr).toContain('Invalid configuration:');
  expect(failed?.stderr).toContain('PORT must be an integer from 0 to 65535 (got "eighty")');
  expect(failed?.stderr).toContain('KEY_PREFIX must be a letter followed by up to 15 letters or digits (got "has_underscore")');
  expect(failed?.stderr).toContain(
    `URL_ALLOWLIST_CIDRS must be comma-separated address ranges such as 127.0.0.2/32 (Invalid CIDR 'abc') (got "abc")`,
  );
  expect(failed?.stderr).toContain('URL_CA_FILE must name a file this process can read (got "/nonexistent.pem")');
  // Nothing started: no listener line, no stack trace.
  expect(failed?.stderr).not.toMatch(/listening|\n\s+at /);
});

test('S3 settings that do not go together: named before anything listens', async () => {
  const bad = { ...stackEnv('/tmp/unused'), S3_FORCE_PATH_STYLE: 'true' };
  const failed = await run(process.execPath, [startJs], { env: bad }).then(
    () => undefined,
    (err: { code: number; stderr: string }) => err,
  );
  expect(failed?.code).toBe(1);
  expect(failed?.stderr).toContain('Invalid configuration:\n  - S3_BUCKET is required when S3_FORCE_PATH_STYLE is set.');
  expect(failed?.stderr).not.toMatch(/listening|\n\s+at /);
});
