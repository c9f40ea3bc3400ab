// Signing in: a one-time login link from the operator (`npm run -s admin -- account login-link`),
// or one of the account's API keys; signing out ends the session in Auth.
import { Code, ConnectError } from '@connectrpc/connect';
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import type { Console } from '../app.js';
import { html, postForm } from '../html.js';
import { SESSION_COOKIE, sessionCookieOptions } from '../session.js';

const SESSION_SEC = 12 * 3600;

export const signInRoutes: FastifyPluginAsync<Console> = async (app, c) => {
  const start = async (reply: FastifyReply, credential: { case: 'loginToken' | 'apiKey'; value: string }) => {
    const { sessionToken } = await c.clients.auth.startConsoleSession({ credential });
    reply.setCookie(SESSION_COOKIE, sessionToken, sessionCookieOptions(c.secure, SESSION_SEC));
    return reply.redirect('/keys', 303);
  };
  const refused = (err: unknown): string | undefined =>
    err instanceof ConnectError && (err.code === Code.Unauthenticated || err.code === Code.InvalidArgument) ? err.rawMessage : undefined;

  const signInPage = (message?: string) => (csrfToken: string) =>
    html`
    ${message ? html`<p class="notice" role="alert">${message}</p>` : ''}
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
  app.get('/signin', async (req, reply) =>
    req.signed ? reply.redirect('/keys', 303) : c.page(req, reply, { title: 'Sign in' }, signInPage()),
  );
  app.get<{ Querystring: { token?: string } }>(
    '/login',
    { schema: { querystring: { type: 'object', properties: { token: { type: 'string', maxLength: 200 } } } } },
    async (req, reply) => {
      try {
        return await start(reply, { case: 'loginToken', value: req.query.token ?? '' });
      } catch (err) {
        const message = refused(err);
        if (!message) throw err;
        return c.page(req, reply, { title: 'Sign in' }, signInPage(message), 401);
      }
    },
  );
  app.post<{ Body: { api_key?: string } }>('/signin', { preHandler: app.csrfProtection }, async (req, reply) => {
    try {
      return await start(reply, { case: 'apiKey', value: String(req.body?.api_key ?? '') });
    } catch (err) {
      const message = refused(err);
      if (!message) throw err;
      return c.page(req, reply, { title: 'Sign in' }, signInPage(message), 401);
    }
  });
  app.post('/signout', { preHandler: app.csrfProtection }, async (req, reply) => {
    if (req.signed) await c.clients.auth.endConsoleSession({ sessionToken: req.signed.token });
    reply.clearCookie(SESSION_COOKIE, sessionCookieOptions(c.secure));
    return reply.redirect('/signin', 303);
  });
};
