// The Files page's resumable uploads (issue 44) in a real browser (Debian's chromium driven by
// playwright-core) against `npm start` on the local disk: a file chosen on the page goes with tus
// (tus-js-client, served by the console) to Storage's signed upload URL; the network is cut after
// the first part, the page says so; after a reload the same file, chosen again, resumes where the
// parts stopped (no new upload), is paused and resumed with the page's buttons, and the file is
// listed and downloads byte-identical. On a directory's page a taken name gets the API's sentence
// and a dropped file lands there. Storage answers CORS for the console's origin only
// (CONSOLE_URL). A second account on the same browser never resumes the first one's upload, and
// signing out forgets them all. Storage's answers decide what a row offers: an expired upload is
// final (no Resume), a 503 offers Resume, and a kept upload Storage refuses (its HEAD) starts
// anew; each row links its own file's directory. Skipped where no chromium is installed.
import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type Browser, chromium, type Page, type Request, type Route } from 'playwright-core';
import { freePorts, spawnStack, type Spawned } from '@media/testkit';
import { shot } from './shots.js';

const CHROMIUM = '/usr/bin/chromium';
const maybe = existsSync(CHROMIUM) ? describe : describe.skip;
const MiB = 1024 * 1024;
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');
maybe('resumable uploads from the Files page, in chromium', () => {
  let stack: Spawned;
  let browser: Browser;
  let consoleUrl: string;

  beforeAll(async () => {
    // A console at a known address, named in CONSOLE_URL: Storage allows that origin only.
    const [port] = await freePorts(1);
    consoleUrl = `http://127.0.0.1:${port}`;
    [stack, browser] = await Promise.all([
      spawnStack({
        CONSOLE_PORT: String(port),
        CONSOLE_HOST: '127.0.0.1',
        CONSOLE_URL: consoleUrl,
        UPLOAD_CORS_ORIGINS: consoleUrl,
        UPLOAD_CHUNK_MB: '1',
      }),
      chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] }),
    ]);
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
  });

  /** Signs `page` in to a new account through a login link; its id. */
  async function signIn(page: Page): Promise<string> {
    const { account_id: accountId } = await stack.admin('account', 'create');
    const { url } = await stack.admin('account', 'login-link', String(accountId));
    await page.goto(String(url));
    await page.getByRole('button', { name: `Sign in as ${accountId}` }).click();
    expect(new URL(page.url()).pathname).toBe('/keys');
    return String(accountId);
  }
  /** A file of `n` random bytes in the stack's data directory. */
  async function file(name: string, n: number): Promise<{ path: string; bytes: Buffer }> {
    const bytes = randomBytes(n);
    const path = join(stack.dataDir, name);
    await writeFile(path, bytes);
    return { path, bytes };
  }
  /** tus-js-client's records in the page's localStorage (in the page's realm: no DOM types here). */
  const kept = (page: Page) => page.evaluate<string[]>("Object.keys(localStorage).filter((k) => k.startsWith('tus::'))");
  /** Storage's answer, as the page's fetch reads it across origins. */
  const answer = (route: Route, status: number, body: string) =>
    route.fulfill({
      status,
      body,
      headers: { 'access-control-allow-origin': consoleUrl, 'tus-resumable': '1.0.0', 'content-type': 'text/plain; charset=utf-8' },
    });
  const row = (page: Page, name: string) => page.locator('.uploads li').filter({ hasText: name });
  const said = (page: Page, name: string, text: string | RegExp) =>
    row(page, name).getByRole('status').filter({ hasText: text }).waitFor({ timeout: 30_000 });

  test('an upload cut after its first part resumes after a reload, pauses and resumes, is listed and downloads byte-identical; drop; a taken name', async () => {
    const bytes = randomBytes(3 * MiB + 12_345);
    const path = join(stack.dataDir, 'holiday.bin');
    await writeFile(path, bytes);
    const { account_id: accountId } = await stack.admin('account', 'create');
    const { url } = await stack.admin('account', 'login-link', String(accountId));
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(String(url));
    await page.getByRole('button', { name: `Sign in as ${accountId}` }).click();
    expect(new URL(page.url()).pathname).toBe('/keys');

    const files = await page.goto(`${consoleUrl}/files`);
    // Scripts from the console only; uploads may go to the console and to Storage's listener.
    const csp = String(files?.headers()['content-security-policy']);
    expect(csp).toContain("script-src 'self'");
    expect(csp).toMatch(/connect-src 'self' http:\/\/localhost:\d+;/);
    await expect(page.getByRole('heading', { name: 'Upload files' }).isVisible()).resolves.toBe(true);

    // Every request to the upload URL, and the network cut for every PATCH after the first.
    const sent: Request[] = [];
    page.on('request', (r) => {
      if (new URL(r.url()).pathname.startsWith('/blob/')) sent.push(r);
    });
    let patches = 0;
    await page.route('**/blob/**', (route) =>
      route.request().method() === 'PATCH' && ++patches > 1 ? route.abort('connectionreset') : route.continue(),
    );
    await page.getByLabel('Choose files').setInputFiles(path);
    const state = page.locator('.uploads li').filter({ hasText: 'holiday.bin' }).getByRole('status');
    await state.filter({ hasText: 'Interrupted' }).waitFor({ timeout: 30_000 });
    await expect(page.getByRole('button', { name: 'Resume holiday.bin' }).isVisible()).resolves.toBe(true);
    await shot(page, 'upload-interrupted');
    const uploadUrl = sent.find((r) => r.method() === 'PATCH')!.url();
    expect(sent.filter((r) => r.method() === 'POST')).toHaveLength(1);

    // Storage answers CORS for the console's origin, not for another.
    const preflight = (origin: string) =>
      fetch(uploadUrl, {
        method: 'OPTIONS',
        headers: { origin, 'access-control-request-method': 'PATCH', 'access-control-request-headers': 'tus-resumable,upload-offset' },
      });
    expect((await preflight(consoleUrl)).headers.get('access-control-allow-origin')).toBe(consoleUrl);
    expect((await preflight('http://elsewhere.example')).headers.get('access-control-allow-origin')).not.toBe('http://elsewhere.example');
    // A refusal before tus (a tampered signature) is readable by the console's page too.
    const tampered = await fetch(`${uploadUrl}0`, { method: 'HEAD', headers: { origin: consoleUrl, 'tus-resumable': '1.0.0' } });
    expect(tampered.status).toBe(403);
    expect(tampered.headers.get('access-control-allow-origin')).toBe(consoleUrl);

    // The network is back; the page is reloaded and the same file chosen again: it resumes. Its
    // third part is held on the way, so that the user can pause it, then resume.
    await page.unroute('**/blob/**');
    sent.length = 0;
    let held!: (r: Route) => void;
    const holding = new Promise<Route>((r) => (held = r));
    await page.route('**/blob/**', async (route) => {
      if (route.request().method() === 'PATCH' && (await route.request().headerValue('upload-offset')) === String(2 * MiB)) held(route);
      else await route.continue();
    });
    await page.reload();
    await page.getByLabel('Choose files').setInputFiles(path);
    const third = await holding;
    await page.getByRole('button', { name: 'Pause holiday.bin' }).click();
    await page
      .locator('.uploads li')
      .getByRole('status')
      .filter({ hasText: /^Paused at [23]\.\d MB$/ })
      .waitFor({ timeout: 10_000 });
    await third.abort().catch(() => undefined); // the page dropped it already
    await page.unroute('**/blob/**');
    await page.getByRole('button', { name: 'Resume holiday.bin' }).click();
    await page
      .locator('.uploads li')
      .filter({ hasText: 'holiday.bin' })
      .getByRole('status')
      .filter({ hasText: /^Uploaded$/ })
      .waitFor({ timeout: 30_000 });
    // The same upload, continued from the first part's end: no second creation.
    expect(sent.map((r) => r.method())).not.toContain('POST');
    expect(sent.every((r) => r.url() === uploadUrl)).toBe(true);
    const offsets = await Promise.all(sent.filter((r) => r.method() === 'PATCH').map((r) => r.headerValue('upload-offset')));
    // From the first part's end; the held third part again after the pause (asked for with a HEAD).
    expect(offsets).toEqual([MiB, 2 * MiB, 2 * MiB, 3 * MiB].map(String));
    expect(sent.filter((r) => r.method() === 'HEAD')).toHaveLength(2);

    // Listed in its directory; its download is the same bytes.
    await page.getByRole('link', { name: 'Open its directory' }).click();
    const link = page.getByRole('link', { name: 'holiday.bin' });
    const download = await page.request.get(`${consoleUrl}${await link.getAttribute('href')}`);
    expect(download.status()).toBe(200);
    expect(sha256(await download.body())).toBe(sha256(bytes));

    // On the directory's page: the same name again is refused with the API's sentence; a file
    // dropped on the page goes into this directory.
    const dirPath = new URL(page.url()).pathname;
    await page.getByLabel('Choose files').setInputFiles(path);
    await page
      .locator('.uploads li')
      .getByRole('status')
      .filter({ hasText: 'Not uploaded: File name already exists in directory' })
      .waitFor({ timeout: 10_000 });
    // (In the page's realm: the test's types have no DOM.)
    const drop = await page.evaluateHandle(`(() => {
      const data = new DataTransfer();
      data.items.add(new File(['dropped bytes'], 'notes.txt', { type: 'text/plain' }));
      return data;
    })()`);
    await page.locator('[data-drop]').dispatchEvent('drop', { dataTransfer: drop });
    await page
      .locator('.uploads li')
      .filter({ hasText: 'notes.txt' })
      .getByRole('status')
      .filter({ hasText: /^Uploaded$/ })
      .waitFor();
    await shot(page, 'upload-directory');
    // Done or refused: no Pause or Resume left on their rows.
    await expect(page.locator('.uploads button:visible').count()).resolves.toBe(0);
    await page.getByRole('link', { name: 'See it listed' }).click();
    expect(new URL(page.url()).pathname).toBe(dirPath);
    const notes = await page.request.get(`${consoleUrl}${await page.getByRole('link', { name: 'notes.txt' }).getAttribute('href')}`);
    await expect(notes.text()).resolves.toBe('dropped bytes');

    // An upload URL is a change like any other: without the session's token it is refused.
    const forged = await page.request.post(`${consoleUrl}/files/upload`, { form: { file_name: 'forged.bin' } });
    expect(forged.status()).toBe(403);
    await context.close();
  }, 90_000);
  test('account B choosing the file of the cut upload of account A in the same browser starts its own upload; signing out forgets the kept uploads', async () => {
    const { path, bytes } = await file('shared.bin', 2 * MiB + 7);
    const context = await browser.newContext();
    const page = await context.newPage();
    await signIn(page);
    await page.goto(`${consoleUrl}/files`);
    // A's upload: the network cut after its first part, its URL kept by the browser.
    const sent: Request[] = [];
    page.on('request', (r) => {
      if (new URL(r.url()).pathname.startsWith('/blob/')) sent.push(r);
    });
    await page.route('**/blob/**', async (route) =>
      route.request().method() === 'PATCH' && (await route.request().headerValue('upload-offset')) !== '0'
        ? route.abort('connectionreset')
        : route.continue(),
    );
    await page.getByLabel('Choose files').setInputFiles(path);
    await said(page, 'shared.bin', 'Interrupted');
    const uploadUrlA = sent.find((r) => r.method() === 'PATCH')!.url();
    await expect(kept(page)).resolves.toHaveLength(1);
    await page.unroute('**/blob/**');

    // B signs in on the same browser (A never signed out) and chooses the same file: a new upload
    // (a POST) in B's own new directory, not A's URL.
    const b = await signIn(page);
    await page.goto(`${consoleUrl}/files`);
    sent.length = 0;
    await page.getByLabel('Choose files').setInputFiles(path);
    await said(page, 'shared.bin', /^Uploaded$/);
    expect(sent.filter((r) => r.method() === 'POST')).toHaveLength(1);
    expect(sent.some((r) => r.url() === uploadUrlA)).toBe(false);
    await row(page, 'shared.bin').getByRole('link', { name: 'Open its directory' }).click();
    const download = await page.request.get(`${consoleUrl}${await page.getByRole('link', { name: 'shared.bin' }).getAttribute('href')}`);
    expect(sha256(await download.body())).toBe(sha256(bytes));
    await expect(page.locator('nav').textContent()).resolves.toContain(b);
    // A's upload still holds its first part only.
    const head = await fetch(uploadUrlA, { method: 'HEAD', headers: { 'tus-resumable': '1.0.0' } });
    expect(head.headers.get('upload-offset')).toBe(String(MiB));

    // Signing out forgets every upload this browser kept (A's too).
    await expect(kept(page)).resolves.toHaveLength(1);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL((u) => u.pathname === '/signin');
    await expect(page.getByRole('status').textContent()).resolves.toBe('You are signed out.');
    await expect(kept(page)).resolves.toEqual([]);
    await context.close();
  }, 90_000);

  test('the answers of Storage decide: expired is final (no Resume, forgotten), 503 offers Resume; a kept upload Storage refuses starts anew; each row links its own directory', async () => {
    const expired = await file('expired.bin', 2 * MiB + 1);
    const busy = await file('busy.bin', 2 * MiB + 2);
    const late = await file('late.bin', 2 * MiB + 3);
    const other = await file('other.bin', 1000);
    const suspended = await file('suspended.bin', 2 * MiB + 4);
    const context = await browser.newContext();
    const page = await context.newPage();
    await signIn(page);
    await page.goto(`${consoleUrl}/files`);
    const sent: Request[] = [];
    page.on('request', (r) => {
      if (new URL(r.url()).pathname.startsWith('/blob/')) sent.push(r);
    });
    // Each file's parts after the first are answered as the mode says.
    let mode: (route: Route) => Promise<void> = (route) => route.continue();
    await page.route('**/blob/**', async (route) =>
      route.request().method() === 'PATCH' && (await route.request().headerValue('upload-offset')) !== '0' ? mode(route) : route.continue(),
    );
    const urlOf = (name: string) => {
      const post = sent.find(
        (r) => r.method() === 'POST' && r.headers()['upload-metadata']?.includes(Buffer.from(name).toString('base64')),
      );
      return post!.url();
    };

    // Expired: said, with what to do; no Resume; the kept URL forgotten.
    mode = (route) => answer(route, 403, 'This URL has expired.');
    await page.getByLabel('Choose files').setInputFiles(expired.path);
    await said(page, 'expired.bin', 'Not uploaded: This URL has expired. Choose the file again to upload it anew.');
    await expect(row(page, 'expired.bin').getByRole('button').isVisible()).resolves.toBe(false);
    await expect(kept(page)).resolves.toEqual([]);

    // A 403 for another reason (an account not active): not final; Resume, the URL kept.
    mode = (route) => answer(route, 403, 'This account is suspended. Contact support to reactivate it.');
    await page.getByLabel('Choose files').setInputFiles(suspended.path);
    await said(page, 'suspended.bin', 'Interrupted: This account is suspended.');
    await expect(kept(page)).resolves.toHaveLength(1);
    mode = (route) => route.continue();
    await page.getByRole('button', { name: 'Resume suspended.bin' }).click();
    await said(page, 'suspended.bin', /^Uploaded$/);
    await expect(kept(page)).resolves.toEqual([]);

    // A failure of the service: retried, then Resume, and the URL kept.
    mode = (route) => answer(route, 503, 'The service is low on storage space. Retry later, or delete files you no longer need.');
    await page.getByLabel('Choose files').setInputFiles(busy.path);
    await said(page, 'busy.bin', 'Interrupted: The service is low on storage space.');
    await expect(page.getByRole('button', { name: 'Resume busy.bin' }).isVisible()).resolves.toBe(true);
    mode = (route) => route.abort('connectionreset');
    await page.getByLabel('Choose files').setInputFiles(late.path);
    await said(page, 'late.bin', 'Interrupted');
    await expect(kept(page)).resolves.toHaveLength(2);
    const lateUrl = urlOf('late.bin');

    // After a reload: another file first (a new directory), then busy.bin resumes into its own
    // directory (its row's link says so), and late.bin, whose upload Storage calls expired,
    // starts anew with a POST.
    mode = (route) => route.continue();
    await page.route(lateUrl, (route) =>
      route.request().method() === 'HEAD' ? answer(route, 403, 'This URL has expired.') : route.continue(),
    );
    await page.reload();
    sent.length = 0;
    await page.getByLabel('Choose files').setInputFiles(other.path);
    await said(page, 'other.bin', /^Uploaded$/);
    await page.getByLabel('Choose files').setInputFiles(busy.path);
    await said(page, 'busy.bin', /^Uploaded$/);
    const busyLink = await row(page, 'busy.bin').getByRole('link', { name: 'Open its directory' }).getAttribute('href');
    const otherLink = await row(page, 'other.bin').getByRole('link', { name: 'Open its directory' }).getAttribute('href');
    expect(busyLink).not.toBe(otherLink);
    await page.getByLabel('Choose files').setInputFiles(late.path);
    await said(page, 'late.bin', /^Uploaded$/);
    expect(sent.filter((r) => r.method() === 'POST')).toHaveLength(2);
    expect(sent.some((r) => r.url() === lateUrl && r.method() === 'PATCH')).toBe(false);
    await expect(kept(page)).resolves.toEqual([]);
    await page.goto(`${consoleUrl}${busyLink}`);
    const download = await page.request.get(`${consoleUrl}${await page.getByRole('link', { name: 'busy.bin' }).getAttribute('href')}`);
    expect(sha256(await download.body())).toBe(sha256(busy.bytes));
    await context.close();
  }, 120_000);
});
