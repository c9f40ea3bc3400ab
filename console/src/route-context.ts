// What every route of the console is registered with (app.ts builds it): its own module so the
// routes depend on this contract, not on the app that registers them.
import type { FastifyReply, FastifyRequest, preHandlerHookHandler } from 'fastify';
import type { Clients } from './clients.js';
import type { ConsoleConfig } from './config.js';
import type { Html, PageContext } from './html.js';
import type { Signed } from './session.js';

/** What every route gets: the clients, and helpers to render a page for the signed-in account. */
export interface Console {
  clients: Clients;
  config: ConsoleConfig;
  secure: boolean;
  /** Every POST's preHandler: from a console page, no shadowed cookie, its session's token (csrf.ts). */
  checkForm: preHandlerHookHandler;
  /** The signed-in account, or a redirect to the sign-in page (then undefined). */
  signedIn(req: FastifyRequest, reply: FastifyReply): Signed | undefined;
  page(
    req: FastifyRequest,
    reply: FastifyReply,
    ctx: Omit<PageContext, 'accountId' | 'csrfToken' | 'docsUrl'>,
    body: (csrfToken: string) => Html,
    status?: number,
  ): FastifyReply;
}
