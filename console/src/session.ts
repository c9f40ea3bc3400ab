// Who is signed in: the session cookie holds a random token whose hash Auth keeps (12 hours; a
// session opened with an API key ends with the key). Every page asks Auth, so a signed-out,
// expired or revoked session stops working at once on every console replica.
import { Code, ConnectError } from '@connectrpc/connect';
import { type AccountStatus, AccountStatusSchema } from '@media/proto/media/auth/v1/auth_pb.js';
import { accountNotActive, enumNames } from '@media/platform';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Clients } from './clients.js';
import { cookieCount, cookieNames, cookiePaths } from './csrf.js';

export interface Signed {
  token: string;
  accountId: string;
  keyId: string;
  status: AccountStatus;
}

declare module 'fastify' {
  interface FastifyRequest {
    signed?: Signed;
    /** The request carried a console cookie twice: treated as signed out, and the copies cleared. */
    shadowed?: boolean;
  }
}

export function sessionCookieOptions(secure: boolean, maxAgeSec?: number) {
  // Lax, not Strict: a login link is opened from a mail or a terminal (another site), and the
  // page it shows must know who is signed in. Every change is a POST with a CSRF token.
  return { path: '/', httpOnly: true, sameSite: 'lax' as const, secure, ...(maxAgeSec ? { maxAge: maxAgeSec } : {}) };
}

/** True (and every copy the console can reach cleared) when a console cookie came more than once. */
export function clearShadowed(req: FastifyRequest, reply: FastifyReply, secure: boolean): boolean {
  const names = Object.values(cookieNames(secure));
  if (!names.some((name) => cookieCount(req.headers.cookie, name) > 1)) return false;
  // A copy's Path is a prefix of this URL's path; one with a Domain stays (it cannot be named).
  for (const name of names) {
    // Not read by anything later in this request (a fresh CSRF secret replaces the one at /).
    delete req.cookies[name];
    for (const path of cookiePaths(req.url)) reply.clearCookie(name, { ...sessionCookieOptions(secure), path });
  }
  return true;
}

/** The session behind the request's cookie, or undefined (and the stale cookie cleared). */
export async function readSession(
  clients: Clients,
  req: FastifyRequest,
  reply: FastifyReply,
  secure: boolean,
): Promise<Signed | undefined> {
  if (clearShadowed(req, reply, secure)) {
    req.shadowed = true;
    return undefined;
  }
  const name = cookieNames(secure).session;
  const token = req.cookies[name];
  if (!token) return undefined;
  try {
    const { session } = await clients.auth.getConsoleSession({ sessionToken: token });
    return { token, accountId: session!.accountId, keyId: session!.keyId, status: session!.accountStatus };
  } catch (err) {
    if (err instanceof ConnectError && err.code === Code.Unauthenticated) {
      reply.clearCookie(name, sessionCookieOptions(secure));
      return undefined;
    }
    throw err;
  }
}

const STATUS = enumNames<AccountStatus>(AccountStatusSchema);

/** The spec's sentence for an account that is not active (what its API keys are answered). */
export function statusNotice(status: AccountStatus, consoleUrl: string, supportContact: string): string | undefined {
  return accountNotActive(STATUS.name(status) ?? '', { consoleUrl, supportContact })?.message;
}
