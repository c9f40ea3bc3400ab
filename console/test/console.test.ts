// The web console in a real browser (Debian's chromium driven by playwright-core) against
// `npm start`, as an account holder uses it: sign in with a login link (confirmed), make a key and use it on
// the API, watch a job complete, read the usage, revoke the key; a second account sees none of
// it; a change without the CSRF token is refused. Skipped where no chromium is installed (CI
// installs it). With CONSOLE_SCREENSHOTS=<dir> it saves each page at desktop and phone width
// (docs/console/ holds the committed ones: CONSOLE_SCREENSHOTS=docs/console npx jest console).
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { run, spawnStack, type Spawned } from '@media/testkit';
import { shot } from './shots.js';

const CHROMIUM = '/usr/bin/chromium';
const maybe = existsSync(CHROMIUM) ? describe : describe.skip;

maybe('the web console in chromium', () => {
  let stack: Spawned;
  let browser: Browser;
  let consoleUrl: string;

  beforeAll(async () => {
    [stack, browser] = await Promise.all([
      spawnStack({ CONSOLE_PORT: '0', CONSOLE_HOST: '127.0.0.1' }),
      chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] }),
    ]);
    consoleUrl = /web console:\s+(\S+)/.exec(stack.banner)![1]!;
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
  });

  /** A browser of its own signed in to `accountId` through a login link, as the operator hands it out. */
  async function signedIn(accountId: string): Promise<{ context: BrowserContext; page: Page }> {
    const { url } = await stack.admin('account', 'login-link', accountId);
    expect(String(url)).toMatch(new RegExp(`^${consoleUrl}/login\\?token=`));
    const context = await browser.newContext();
    const page = await context.newPage();
    // The link asks first; only the button signs in (and uses the link).
    await page.goto(String(url));
    await expect(page.locator('h1').textContent()).resolves.toBe(`Sign in as account ${accountId}?`);
    await shot(page, 'login-link');
    await page.getByRole('button', { name: `Sign in as ${accountId}` }).click();
    expect(new URL(page.url()).pathname).toBe('/keys');
    await expect(page.locator('h1').textContent()).resolves.toBe('API keys');
    // The link was for once.
    const again = await (await browser.newContext()).newPage();
    const res = await again.goto(String(url));
    expect(res?.status()).toBe(401);
    await expect(again.getByRole('alert').textContent()).resolves.toContain('used already');
    return { context, page };
  }

  const api = (authorization: string, path: string, init: RequestInit = {}) =>
    fetch(`${stack.baseUrl}${path}`, { ...init, headers: { authorization, 'content-type': 'application/json', ...init.headers } });

  test('sign in, make a key and use it, see a job and the usage, revoke; another account sees none of it', async () => {
    const clipPath = join(stack.dataDir, 'e2e-clip.mp4');
    await run('ffmpeg', [
      '-y',
      '-v',
      'error',
      '-f',
      'lavfi',
      '-i',
      'testsrc=duration=1:size=160x120:rate=10',
      '-pix_fmt',
      'yuv420p',
      clipPath,
    ]);
    const bytes = await readFile(clipPath);
    const { account_id: accountId } = await stack.admin('account', 'create');
    const { page } = await signedIn(String(accountId));
    await shot(page, 'keys-empty');

    // Create a key: the key and the whole header are shown once.
    await page.getByLabel('Name').fill('e2e laptop');
    await page.getByRole('button', { name: 'Create key' }).click();
    await expect(page.locator('h1').textContent()).resolves.toBe('Key created');
    const authorization = String(await page.locator('#header').textContent()).trim();
    expect(authorization).toMatch(/^Basic \S+$/);
    await shot(page, 'key-created');
    expect((await api(authorization, '/account')).status).toBe(200);

    // A job through the API with that key, then seen in the console with its result link.
    const reg = (await (await api(authorization, '/file', { method: 'POST', body: JSON.stringify({ file_name: 'clip.mp4' }) })).json()) as {
      upload: { url: string; headers: Record<string, string> };
      file: { file_path: string; dir_id: string };
    };
    expect((await fetch(reg.upload.url, { method: 'PUT', headers: reg.upload.headers, body: bytes })).status).toBe(200);
    const task = { inputs: [{ file_path: reg.file.file_path }], outputs: [{ file: 'thumb.png', options: ['-frames:v', '1'] }] };
    const job = await api(authorization, '/ffmpeg/process', { method: 'POST', body: JSON.stringify({ task }) });
    expect(job.status).toBe(200);
    const jobId = String(((await job.json()) as { request_id: string }).request_id);
    await page.getByRole('link', { name: 'Jobs', exact: true }).click();
    await page.getByRole('link', { name: jobId }).click();
    await expect(page.locator('#job-status').textContent()).resolves.toBe('completed');
    // The task it ran, as the request body spelt it.
    expect(JSON.parse(String(await page.locator('#job-task').textContent()))).toEqual({ task });
    const result = page.getByRole('link', { name: 'thumb.png' });
    expect((await fetch(String(await result.getAttribute('href')))).status).toBe(200);
    await shot(page, 'job');
    await page.goto(`${consoleUrl}/jobs`);
    await shot(page, 'jobs');

    // A second key's job (made with the admin CLI): the chart stacks the two keys.
    const ci = await stack.admin('key', 'create', '--account', String(accountId), '--name', 'ci runner');
    const secondJob = await api(String(ci.authorization), '/ffmpeg/process', {
      method: 'POST',
      body: JSON.stringify({ task: { ...task, outputs: [{ file: 'ci.png', options: ['-frames:v', '1', '-vf', 'scale=320:-2'] }] } }),
    });
    expect(secondJob.status).toBe(200);
    const secondId = String(((await secondJob.json()) as { request_id: string }).request_id);

    // The usage page's total is GET /account's.
    const account = (await (await api(authorization, '/account')).json()) as { quota: { used_gb_sec: number } };
    expect(account.quota.used_gb_sec).toBeGreaterThan(0);
    await page.getByRole('link', { name: 'Usage' }).click();
    const shown = Number(await page.locator('#total-gb-sec').textContent());
    await expect(page.locator('.legend li').allTextContents()).resolves.toEqual(expect.arrayContaining(['e2e laptop', 'ci runner']));
    // Six significant digits of the same figure.
    expect(Math.abs(shown - account.quota.used_gb_sec) / account.quota.used_gb_sec).toBeLessThan(1e-5);
    const csv = await (await page.request.get(`${consoleUrl}/usage.csv`)).text();
    expect(csv.split('\n').filter((l) => l.startsWith(jobId))).toHaveLength(1);
    // The same bytes as the API's export of the month.
    const month = new Date().toISOString().slice(0, 7);
    expect(csv).toBe(await (await api(authorization, `/account/usage?month=${month}`)).text());
    const json = (await (await page.request.get(`${consoleUrl}/usage.json`)).json()) as { request_id: string }[];
    expect(json.map((r) => r.request_id).sort()).toEqual([jobId, secondId].sort());
    await shot(page, 'usage');

    // Files: the upload's directory, its files, a download.
    await page.getByRole('link', { name: 'Files' }).click();
    await shot(page, 'files');
    await page.getByRole('link', { name: reg.file.dir_id }).click();
    const download = page.getByRole('link', { name: 'clip.mp4' });
    const fileRes = await page.request.get(`${consoleUrl}${await download.getAttribute('href')}`);
    expect(Buffer.from(await fileRes.body()).equals(bytes)).toBe(true);
    await shot(page, 'directory');

    // Webhooks: revealed on request, rotated.
    await page.getByRole('link', { name: 'Webhooks' }).click();
    await expect(page.locator('#secret').count()).resolves.toBe(0);
    await page.getByRole('button', { name: 'Reveal secret' }).click();
    const secret = String(await page.locator('#secret').textContent());
    expect(secret).toMatch(/^whsec_/);
    await page.getByRole('button', { name: 'Rotate secret' }).click();
    const rotated = String(await page.locator('#secret').textContent());
    expect(rotated).toMatch(/^whsec_/);
    expect(rotated).not.toBe(secret);
    await shot(page, 'webhooks');

    // A change without the CSRF token (a forged form from another site) is refused, nothing made.
    const forged = await page.request.post(`${consoleUrl}/keys`, { form: { name: 'forged' }, maxRedirects: 0 });
    expect(forged.status()).toBe(403);
    const forgedToken = await page.request.post(`${consoleUrl}/keys`, { form: { name: 'forged', _csrf: 'x'.repeat(52) }, maxRedirects: 0 });
    expect(forgedToken.status()).toBe(403);
    await page.goto(`${consoleUrl}/keys`);
    await expect(page.getByText('forged').count()).resolves.toBe(0);

    // A second account: none of the first one's keys, jobs, files or usage.
    const { account_id: otherId } = await stack.admin('account', 'create');
    const other = await signedIn(String(otherId));
    for (const path of ['/keys', '/jobs', '/files', '/usage']) {
      await other.page.goto(`${consoleUrl}${path}`);
      const text = String(await other.page.content());
      for (const secretOfFirst of [jobId, reg.file.dir_id, 'e2e laptop', String(accountId)])
        expect({ path, found: text.includes(secretOfFirst) }).toEqual({ path, found: false });
    }
    for (const path of [`/jobs/${jobId}`, `/files/${reg.file.dir_id}`])
      expect((await other.page.goto(`${consoleUrl}${path}`))?.status()).toBe(404);
    await shot(other.page, 'usage-empty');

    // The key's last use (the API calls above), to the minute.
    await page.goto(`${consoleUrl}/keys`);
    const lastUsed = String(await page.locator('tr', { hasText: 'e2e laptop' }).locator('[data-last-used]').textContent());
    expect(lastUsed).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d UTC$/);
    expect(Math.abs(Date.parse(lastUsed.replace(' UTC', 'Z').replace(' ', 'T')) - Date.now())).toBeLessThan(3 * 60_000);
    await shot(page, 'keys');

    // Revoke with confirmation: the key stops working (the spec allows 60 s).
    await page.getByRole('link', { name: 'Revoke e2e laptop' }).click();
    await shot(page, 'revoke');
    await page.getByRole('button', { name: 'Revoke key' }).click();
    await expect(page.getByRole('status').textContent()).resolves.toContain('was revoked');
    let status = 0;
    for (const until = Date.now() + 60_000; Date.now() < until; await new Promise((r) => setTimeout(r, 250))) {
      status = (await api(authorization, '/account')).status;
      if (status === 401) break;
    }
    expect(status).toBe(401);
  }, 120_000);

  test("a session opened with an API key ends with the key; an account that is not active sees its state's sentence", async () => {
    const { account_id: accountId } = await stack.admin('account', 'create');
    const key = await stack.admin('key', 'create', '--account', String(accountId), '--name', 'signin');
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${consoleUrl}/`);
    expect(new URL(page.url()).pathname).toBe('/signin');
    await shot(page, 'signin');
    // A wrong key is refused with a sentence.
    await page.getByLabel('API key').fill('mk_not_a_key');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page.getByRole('alert').textContent()).resolves.toContain('not valid');
    // The whole Authorization header value, as the console showed it, signs in too.
    await page.getByLabel('API key').fill(String(key.authorization));
    await page.getByRole('button', { name: 'Sign in' }).click();
    expect(new URL(page.url()).pathname).toBe('/keys');

    await stack.admin('account', 'set-status', String(accountId), 'no_card');
    await page.reload();
    await expect(page.getByRole('alert').textContent()).resolves.toMatch(/^Add a card at .* to start using the API\.$/);

    await stack.admin('key', 'revoke', String(key.key_id));
    await page.reload();
    expect(new URL(page.url()).pathname).toBe('/signin');
    await page.goto(`${consoleUrl}/jobs`);
    expect(new URL(page.url()).pathname).toBe('/signin');

    // Signing out ends a login link's session (the cookie alone no longer opens a page).
    const { account_id: third } = await stack.admin('account', 'create');
    const s = await signedIn(String(third));
    const cookies = await s.context.cookies();
    await s.page.getByRole('button', { name: 'Sign out' }).click();
    expect(new URL(s.page.url()).pathname).toBe('/signin');
    const replay = await browser.newContext();
    await replay.addCookies(cookies);
    const replayed = await replay.newPage();
    await replayed.goto(`${consoleUrl}/keys`);
    expect(new URL(replayed.url()).pathname).toBe('/signin');
  }, 60_000);
});
