// Signing in: a one-time login link from the operator (`npm run -s admin -- account login-link`),
// or one of the account's API keys; signing out ends the session in Auth. Opening a login link
// only asks (a page with a POST button): a page of another site that opens one cannot sign the
// browser in to another account, nor use up the link.
import { Code, ConnectError } from '@connectrpc/connect';
import { CONSOLE_SESSION_TTL_MS, Errors } from '@media/platform';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { Console } from '../route-context.js';
import { cookieNames } from '../csrf.js';
import { html, postForm } from '../html.js';
import { sessionCookieOptions } from '../session.js';

const SESSION_SEC = CONSOLE_SESSION_TTL_MS / 1000;
const TOKEN = { type: 'string', maxLength: 200 } as const;

export const signInRoutes: FastifyPluginAsync<Console> = async (app, c) => {
  const sessionCookie = cookieNames(c.secure).session;
  const start = async (req: FastifyRequest, reply: FastifyReply, credential: { case: 'loginToken' | 'apiKey'; value: string }) => {
    const { sessionToken } = await c.clients.auth.startConsoleSession({ credential });
    // The session it replaces ends (not left open behind a cookie that is gone).
    if (req.signed) await c.clients.auth.endConsoleSession({ sessionToken: req.signed.token });
    reply.setCookie(sessionCookie, sessionToken, sessionCookieOptions(c.secure, SESSION_SEC));
    return reply.redirect('/keys', 303);
  };
  const refused = (err: unknown): string | undefined =>
    err instanceof ConnectError && (err.code === Code.Unauthenticated || err.code === Code.InvalidArgument) ? err.rawMessage : undefined;

  const signInPage =
    (message?: string, signedOut = false) =>
    (csrfToken: string) =>
      html`
    ${message ? html`<p class="notice" role="alert">${message}</p>` : ''}
    ${signedOut ? html`<p role="status" data-signed-out>You are signed out.</p>` : ''}
    <p>Sign in with one of your account's API keys, or open the sign-in link your operator gave you
    (<code>npm run -s admin -- account login-link &lt;account_id&gt;</code>; valid 15 minutes, once).</p>
    ${postForm(
      '/signin',
      csrfToken,
      html`<label for="api_key">API key</label>
        <input type="password" id="api_key" name="api_key" autocomplete="off" required>
        <p><button type="submit">Sign in</button></p>`,
    )}`;

  app.get('/', async (req, reply) => reply.redirect(req.signed ? '/keys' : '/signin', 303));
  // After signing out (?signed_out=1) the page's script forgets the browser's kept uploads.
  app.get<{ Querystring: { shadowed?: string; signed_out?: string } }>('/signin', async (req, reply) =>
    req.signed
      ? reply.redirect('/keys', 303)
      : c.page(
          req,
          reply,
          { title: 'Sign in' },
          signInPage(req.query.shadowed ? Errors.consoleCookiesShadowed().message : undefined, req.query.signed_out === '1'),
        ),
  );
  // The link asks: whose account it opens, and that it replaces the session there is.
  app.get<{ Querystring: { token?: string } }>(
    '/login',
    { schema: { querystring: { type: 'object', properties: { token: TOKEN } } } },
    async (req, reply) => {
      const token = req.query.token ?? '';
      let accountId: string;
      try {
        ({ accountId } = await c.clients.auth.getLoginLink({ loginToken: token }));
      } catch (err) {
        const message = refused(err);
        if (!message) throw err;
        return c.page(req, reply, { title: 'Sign in' }, signInPage(message), 401);
      }
      const current = req.signed?.accountId;
      return c.page(
        req,
        reply,
        { title: `Sign in as account ${accountId}?` },
        (csrf) => html`
        ${
          current
            ? html`<p id="replaces">You are signed in as <strong>${current}</strong>. Signing in replaces that session${current === accountId ? ' with a new one' : html`: you will see account ${accountId}'s pages instead`}.</p>`
            : ''
        }
        <p>This sign-in link opens the console as account <strong>${accountId}</strong>. Sign in only if you asked for it; it works once.</p>
        ${postForm(
          '/login',
          csrf,
          html`<input type="hidden" name="token" value="${token}">
            <p><button type="submit">Sign in as ${accountId}</button> ${current ? html`<a href="/keys">Stay signed in as ${current}</a>` : ''}</p>`,
        )}`,
      );
    },
  );
  app.post<{ Body: { token?: string } }>('/login', { preHandler: c.checkForm }, async (req, reply) => {
    try {
      return await start(req, reply, { case: 'loginToken', value: String(req.body?.token ?? '').slice(0, TOKEN.maxLength) });
    } catch (err) {
      const message = refused(err);
      if (!message) throw err;
      return c.page(req, reply, { title: 'Sign in' }, signInPage(message), 401);
    }
  });
  app.post<{ Body: { api_key?: string } }>('/signin', { preHandler: c.checkForm }, async (req, reply) => {
    try {
      return await start(req, reply, { case: 'apiKey', value: String(req.body?.api_key ?? '') });
    } catch (err) {
      const message = refused(err);
      if (!message) throw err;
      return c.page(req, reply, { title: 'Sign in' }, signInPage(message), 401);
    }
  });
  app.post('/signout', { preHandler: c.checkForm }, async (req, reply) => {
    if (req.signed) await c.clients.auth.endConsoleSession({ sessionToken: req.signed.token });
    reply.clearCookie(sessionCookie, sessionCookieOptions(c.secure));
    return reply.redirect('/signin?signed_out=1', 303);
  });
};
