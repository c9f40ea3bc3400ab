// Pages of other sites acting for a signed-in console user (issue 39), in chromium against
// `npm start`. The attacker's pages are served by this test on another loopback port: from
// 127.0.0.1 they are same-site with the console (cookies ignore ports, so they can plant cookies
// it receives), from localhost they are cross-site. Each attack succeeded before the fix.
import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { type Browser, chromium, type Page } from 'playwright-core';
import { spawnStack, type Spawned } from '@media/testkit';

const CHROMIUM = '/usr/bin/chromium';
const maybe = existsSync(CHROMIUM) ? describe : describe.skip;

/** An attacker's page: the cookies it plants, then a redirect or an HTML body. */
type Trap = { cookies?: string[]; location?: string; body?: string };

maybe("another site's pages cannot act for a console user", () => {
  let stack: Spawned;
  let browser: Browser;
  let consoleUrl: string;
  let attacker: Server;
  const traps = new Map<string, Trap>();
  let port = 0;

  beforeAll(async () => {
    [stack, browser] = await Promise.all([
      spawnStack({ CONSOLE_PORT: '0', CONSOLE_HOST: '127.0.0.1' }),
      chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] }),
    ]);
    consoleUrl = /web console:\s+(\S+)/.exec(stack.banner)![1]!;
    expect(new URL(consoleUrl).hostname).toBe('127.0.0.1');
    attacker = createServer((req, res) => {
      const trap = traps.get(req.url ?? '');
      if (!trap) return void res.writeHead(404).end();
      if (trap.cookies) res.setHeader('set-cookie', trap.cookies);
      if (trap.location) return void res.writeHead(303, { location: trap.location }).end();
      res.writeHead(200, { 'content-type': 'text/html' }).end(trap.body);
    });
    await new Promise<void>((resolve) => attacker.listen(0, '127.0.0.1', resolve));
    port = (attacker.address() as { port: number }).port;
  }, 60_000);
  afterAll(async () => {
    await new Promise((resolve) => attacker?.close(resolve));
    await browser?.close();
    await stack?.stop();
  });

  const sameSite = (path: string) => `http://127.0.0.1:${port}${path}`;
  const crossSite = (path: string) => `http://localhost:${port}${path}`;
  const autoPost = (action: string, fields: Record<string, string>) =>
    `<form id="f" method="post" action="${action}">${Object.entries(fields)
      .map(([k, v]) => `<input type="hidden" name="${k}" value="${v}">`)
      .join('')}</form><script>document.getElementById('f').submit()</script>`;

  /** An account with a key, signed in to the console in a browser of its own with that key. */
  async function victim(): Promise<{ accountId: string; page: Page }> {
    const accountId = String((await stack.admin('account', 'create')).account_id);
    const key = await stack.admin('key', 'create', '--account', accountId, '--name', 'own');
    const page = await (await browser.newContext()).newPage();
    await page.goto(`${consoleUrl}/signin`);
    await page.getByLabel('API key').fill(String(key.authorization));
    await page.getByRole('button', { name: 'Sign in' }).click();
    expect(new URL(page.url()).pathname).toBe('/keys');
    return { accountId, page };
  }

  /** What any page can get from the console without signing in: a CSRF secret cookie and its token. */
  async function signInFormToken(): Promise<{ secret: string; token: string }> {
    const res = await fetch(`${consoleUrl}/signin`);
    const secret = /_csrf=([^;]+)/.exec(res.headers.get('set-cookie') ?? '')![1]!;
    const token = /name="_csrf" value="([^"]+)"/.exec(await res.text())![1]!;
    return { secret, token };
  }

  /** The attacker's own console session (signed in with its own key, as any account holder can). */
  async function attackerSession(): Promise<{ accountId: string; session: string }> {
    const accountId = String((await stack.admin('account', 'create')).account_id);
    const key = await stack.admin('key', 'create', '--account', accountId, '--name', 'attacker');
    const { secret, token } = await signInFormToken();
    const res = await fetch(`${consoleUrl}/signin`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie: `_csrf=${secret}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ _csrf: token, api_key: String(key.authorization) }),
    });
    expect(res.status).toBe(303);
    return { accountId, session: /media_console=([^;]+)/.exec(res.headers.get('set-cookie') ?? '')![1]! };
  }

  /** The victim opens the attacker's page, which posts to the console: the console's answer. */
  async function visit(page: Page, trap: string, postTo: string) {
    const answer = page.waitForResponse((r) => r.url() === `${consoleUrl}${postTo}` && r.request().method() === 'POST');
    await page.goto(sameSite(trap));
    return answer;
  }

  test('a planted CSRF cookie and a token from /signin create no key and rotate no secret', async () => {
    // Path=/keys: a second _csrf cookie, sent before the victim's own.
    const keys = await victim();
    const forKeys = await signInFormToken();
    traps.set('/toss-keys', {
      cookies: [`_csrf=${forKeys.secret}; Path=/keys`],
      body: autoPost(`${consoleUrl}/keys`, { _csrf: forKeys.token, name: 'tossed' }),
    });
    const created = await visit(keys.page, '/toss-keys', '/keys');
    expect(created.status()).toBe(403);
    await expect(keys.page.getByRole('alert').textContent()).resolves.toMatch(/nothing was changed/);
    const listed = (await stack.admin('key', 'list', '--account', keys.accountId)) as { keys: { name: string }[] };
    expect(listed.keys.map((k) => k.name)).toEqual(['own']);

    // Path=/: the victim's own _csrf cookie replaced by the attacker's.
    const hooks = await victim();
    const before = (await stack.admin('account', 'webhook-secret', hooks.accountId)).webhook_secret;
    const forHooks = await signInFormToken();
    traps.set('/toss-rotate', {
      cookies: [`_csrf=${forHooks.secret}; Path=/`],
      body: autoPost(`${consoleUrl}/webhooks/rotate`, { _csrf: forHooks.token }),
    });
    const rotated = await visit(hooks.page, '/toss-rotate', '/webhooks/rotate');
    expect(rotated.status()).toBe(403);
    expect((await stack.admin('account', 'webhook-secret', hooks.accountId)).webhook_secret).toBe(before);
    // The victim is still signed in, and the console's own forms still work.
    await hooks.page.goto(`${consoleUrl}/webhooks`);
    await hooks.page.getByRole('button', { name: 'Rotate secret' }).click();
    expect((await stack.admin('account', 'webhook-secret', hooks.accountId)).webhook_secret).not.toBe(before);
  }, 60_000);

  test("a planted session cookie with a Path does not show another account's pages", async () => {
    const { accountId, page } = await victim();
    const other = await attackerSession();
    traps.set('/toss-session', { cookies: [`media_console=${other.session}; Path=/keys`], location: `${consoleUrl}/keys` });
    await page.goto(sameSite('/toss-session'));
    // Neither account: signed out, with the sentence, and the copies cleared.
    expect(new URL(page.url()).pathname).toBe('/signin');
    await expect(page.getByRole('alert').textContent()).resolves.toMatch(/cookies twice/);
    expect(await page.content()).not.toContain(other.accountId);
    await page.goto(`${consoleUrl}/jobs`);
    expect(new URL(page.url()).pathname).toBe('/signin');
    await page.goto(`${consoleUrl}/keys`);
    expect(new URL(page.url()).pathname).toBe('/signin');
    expect(await page.content()).not.toContain(other.accountId);
    expect(await page.content()).not.toContain(accountId);
  }, 60_000);

  test('a cross-site page opening a login link only shows the question; the victim stays signed in', async () => {
    const { accountId, page } = await victim();
    const attackerId = String((await stack.admin('account', 'create')).account_id);
    const { url } = await stack.admin('account', 'login-link', attackerId);
    traps.set('/login-csrf', { body: `<script>location.href = ${JSON.stringify(url)}</script>` });
    await page.goto(crossSite('/login-csrf'));
    await page.waitForURL((u) => u.href.startsWith(`${consoleUrl}/login?`));
    await expect(page.locator('h1').textContent()).resolves.toBe(`Sign in as account ${attackerId}?`);
    await expect(page.locator('#replaces').textContent()).resolves.toContain(accountId);

    // A cross-site form posting the confirmation is refused too.
    traps.set('/login-post', { body: autoPost(`${consoleUrl}/login`, { token: new URL(String(url)).searchParams.get('token')! }) });
    const answer = page.waitForResponse((r) => r.url() === `${consoleUrl}/login` && r.request().method() === 'POST');
    await page.goto(crossSite('/login-post'));
    expect((await answer).status()).toBe(403);

    await page.goto(`${consoleUrl}/keys`);
    await expect(page.locator('nav .muted').textContent()).resolves.toBe(accountId);
    // Nothing was consumed: the link still signs its own holder in, once they confirm.
    const holder = await (await browser.newContext()).newPage();
    await holder.goto(String(url));
    await holder.getByRole('button', { name: `Sign in as ${attackerId}` }).click();
    expect(new URL(holder.url()).pathname).toBe('/keys');
    await expect(holder.locator('nav .muted').textContent()).resolves.toBe(attackerId);
  }, 60_000);
});
