// The web console (issue 32): server-rendered pages on a listener of its own (CONSOLE_PORT). It
// calls the services over their internal Connect APIs, always for the signed-in account only.
import cookie from '@fastify/cookie';
import csrf from '@fastify/csrf-protection';
import formbody from '@fastify/formbody';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { capConnections, connectionRefusal, createLogger, Errors } from '@media/platform';
import type { Clients } from './clients.js';
import type { ConsoleConfig } from './config.js';
import { CONSOLE_JS } from './console-js.js';
import { cookieNames, fromConsolePage, sessionCsrfToken, sessionCsrfValid } from './csrf.js';
import { html, layout } from './html.js';
import { UPLOAD_JS } from './upload-js.js';
import type { Console } from './route-context.js';
import { readSession, statusNotice } from './session.js';
import { filesRoutes } from './routes/files.js';
import { jobsRoutes } from './routes/jobs.js';
import { keysRoutes } from './routes/keys.js';
import { signInRoutes } from './routes/signin.js';
import { usageRoutes } from './routes/usage.js';
import { webhooksRoutes } from './routes/webhooks.js';

export interface ConsoleDeps {
  config: ConsoleConfig;
  clients: Clients;
}

export async function buildConsole({ config, clients }: ConsoleDeps): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: createLogger('console', config.LOG_LEVEL) as FastifyBaseLogger,
    forceCloseConnections: true,
    bodyLimit: 64 * 1024,
    // A client sends its headers, then its whole form, in time; nobody holds every socket.
    requestTimeout: 30_000,
    http: { headersTimeout: config.HTTP_HEADERS_TIMEOUT_SEC * 1000, requestTimeout: 30_000, connectionsCheckingInterval: 1000 },
  });
  capConnections(app.server, { perAddress: config.CONNECTIONS_PER_ADDRESS, total: config.MAX_CONNECTIONS });
  const secure = new URL(config.CONSOLE_URL).protocol === 'https:';
  await app.register(cookie);
  await app.register(formbody);
  // Before sign-in only: the CSRF secret lives in its own cookie; each form carries a token made
  // from it. A signed-in page's token is bound to its session instead (csrf.ts).
  await app.register(csrf, { cookieKey: cookieNames(secure).csrf, cookieOpts: { path: '/', httpOnly: true, sameSite: 'strict', secure } });
  // Scripts from this origin only; the Files page's uploads go to Storage's listener as well.
  const connect = ["'self'", ...(config.STORAGE_PUBLIC_URL ? [new URL(config.STORAGE_PUBLIC_URL).origin] : [])].join(' ');
  const policy = `default-src 'self'; script-src 'self'; connect-src ${connect}; style-src 'self' 'unsafe-inline'; img-src 'self' data:; frame-ancestors 'none'; form-action 'self'`;
  app.addHook('onSend', async (_req, reply) => {
    reply.header('x-frame-options', 'DENY');
    reply.header('content-security-policy', policy);
    reply.header('referrer-policy', 'no-referrer');
    // Pages hold secrets and account data: never cached. The script sets its own.
    if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store');
  });
  // A connection over a cap gets its sentence and is closed (as at the gateway).
  app.addHook('onRequest', async (req, reply) => {
    const refusal = connectionRefusal(req.raw.socket);
    if (refusal)
      return reply
        .status(503)
        .header('connection', 'close')
        .header('retry-after', '5')
        .type('text/plain; charset=utf-8')
        .send(refusal.message);
  });
  // Every route but the script and the health check sees who is signed in (one call to Auth).
  app.addHook('preHandler', async (req, reply) => {
    if (req.routeOptions.config?.public) return;
    req.signed = await readSession(clients, req, reply, secure);
  });
  app.get('/console.js', { config: { public: true } }, async (_req, reply) =>
    reply.type('text/javascript').header('cache-control', 'public, max-age=300').send(CONSOLE_JS),
  );
  // tus-js-client's browser build, from the pinned package (no CDN); its source map stays out.
  const tusJs = (await readFile(createRequire(import.meta.url).resolve('tus-js-client/dist/tus.min.js'), 'utf8')).replace(
    /\n\/\/# sourceMappingURL=\S+\s*$/,
    '\n',
  );
  app.get('/tus.min.js', { config: { public: true } }, async (_req, reply) =>
    reply.type('text/javascript').header('cache-control', 'public, max-age=300').send(tusJs),
  );
  app.get('/upload.js', { config: { public: true } }, async (_req, reply) =>
    reply.type('text/javascript').header('cache-control', 'public, max-age=300').send(UPLOAD_JS),
  );
  app.get('/healthz', { config: { public: true } }, async () => ({ ok: true }));

  const ctx: Console = {
    clients,
    config,
    secure,
    checkForm(req, reply, done) {
      // Logged: a refused form is either a stale page or someone trying.
      const refuse = (reason: string, sentence = Errors.consoleFormRefused().message) => {
        req.log.warn({ reason, origin: req.headers.origin, site: req.headers['sec-fetch-site'] }, 'console form refused');
        done(refusal(sentence));
      };
      if (req.shadowed) return refuse('cookie sent twice', Errors.consoleCookiesShadowed().message);
      if (!fromConsolePage(req.headers, config.CONSOLE_URL)) return refuse('not from a console page');
      if (!req.signed) return app.csrfProtection.call(app, req, reply, done);
      if (!sessionCsrfValid(req.signed.token, (req.body as { _csrf?: unknown } | undefined)?._csrf))
        return refuse("not the session's token");
      done();
    },
    signedIn(req, reply) {
      if (req.signed) return req.signed;
      void reply.redirect(req.shadowed ? '/signin?shadowed=1' : '/signin', 303);
      return undefined;
    },
    page(req, reply, page, body, status = 200) {
      const csrfToken = req.signed ? sessionCsrfToken(req.signed.token) : reply.generateCsrf();
      const signed = req.signed;
      const text = layout(
        {
          ...page,
          csrfToken,
          ...(signed
            ? {
                accountId: signed.accountId,
                notice: page.notice ?? statusNotice(signed.status, config.CONSOLE_URL, config.SUPPORT_CONTACT),
              }
            : {}),
          ...(config.DOCS_URL ? { docsUrl: config.DOCS_URL } : {}),
        },
        body(csrfToken),
      );
      return reply.status(status).type('text/html; charset=utf-8').send(text);
    },
  };
  // A change without its CSRF token (or with a forged one) is refused with a page saying so.
  app.setErrorHandler((err: Error & { statusCode?: number; code?: string }, req, reply) => {
    if (err.code === FORM_REFUSED || err.code === 'FST_CSRF_INVALID_TOKEN' || err.code === 'FST_CSRF_MISSING_SECRET') {
      const sentence = err.code === FORM_REFUSED ? err.message : Errors.consoleFormRefused().message;
      return ctx.page(req, reply, { title: 'Request refused' }, () => html`<p role="alert">${sentence}</p>`, 403);
    }
    if ((err.statusCode ?? 500) < 500) return reply.status(err.statusCode!).send(err.message);
    req.log.error({ err }, 'console page failed');
    return ctx.page(req, reply, { title: 'Something went wrong' }, () => failure, 500);
  });
  app.setNotFoundHandler((req, reply) => ctx.page(req, reply, { title: 'Not found' }, () => notFound, 404));

  await app.register(signInRoutes, ctx);
  await app.register(keysRoutes, ctx);
  await app.register(jobsRoutes, ctx);
  await app.register(usageRoutes, ctx);
  await app.register(filesRoutes, ctx);
  await app.register(webhooksRoutes, ctx);
  return app;
}

const FORM_REFUSED = 'CONSOLE_FORM_REFUSED';
const refusal = (sentence: string) => Object.assign(new Error(sentence), { statusCode: 403, code: FORM_REFUSED });
const failure = html`<p>The console could not load this page. Try again in a moment.</p>`;
const notFound = html`<p>There is no such page. <a href="/">Back to the console</a>.</p>`;

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Served without asking Auth who is signed in. */
    public?: boolean;
  }
}
