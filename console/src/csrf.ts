// Which POSTs the console accepts (issue 39). Cookies ignore ports, so a page on the same host
// (another port) is same-site: it can set cookies the console receives, and SameSite does not
// stop it. Hence three checks on every POST:
// - it comes from a console page: `Sec-Fetch-Site: same-origin`, or (older browsers) an `Origin`
//   that is the console's. A client that sends neither is no browser, and cannot be made to post;
// - no cookie of the console's comes twice (a copy planted with another Path or Domain shadows
//   ours: the console would pick one, so it picks none and clears what it can);
// - its token: for a signed-in session, an HMAC keyed by the session's own token (HttpOnly,
//   random, never in a page), so a token minted for another session or for none is refused, and
//   every console replica checks it without a shared key; before sign-in, the double-submit token
//   of @fastify/csrf-protection (its secret cookie could be planted, which the origin check stops).
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

/** `__Host-` over HTTPS: the browser then takes these cookies only with Secure, Path=/ and no Domain. */
export function cookieNames(secure: boolean) {
  return secure ? { session: '__Host-media_console', csrf: '__Host-csrf' } : { session: 'media_console', csrf: '_csrf' };
}

const PURPOSE = 'media-console-form-v1';

/** The form token of a signed-in session. */
export const sessionCsrfToken = (sessionToken: string): string => createHmac('sha256', sessionToken).update(PURPOSE).digest('base64url');

/** Compared in constant time: a wrong guess learns nothing from the time it took. */
export function sessionCsrfValid(sessionToken: string, given: unknown): boolean {
  if (typeof given !== 'string') return false;
  const want = Buffer.from(sessionCsrfToken(sessionToken));
  const got = Buffer.from(given);
  return got.length === want.length && timingSafeEqual(got, want);
}

/** How many times the Cookie header carries `name` (the parsed cookies keep only the first). */
export function cookieCount(header: string | undefined, name: string): number {
  if (!header) return 0;
  return header.split(';').filter((pair) => pair.split('=', 1)[0]!.trim() === name).length;
}

/** Every Path a cookie sent with a request for `url` can have: the prefixes of its path. */
export function cookiePaths(url: string): string[] {
  const path = url.split('?', 1)[0]!;
  const paths = new Set(['/']);
  for (let i = path.indexOf('/', 1); i !== -1; i = path.indexOf('/', i + 1)) {
    paths.add(path.slice(0, i));
    paths.add(path.slice(0, i + 1));
  }
  paths.add(path);
  return [...paths];
}

/** Whether a POST was sent by a page of the console's own origin. */
export function fromConsolePage(headers: IncomingHttpHeaders, consoleUrl: string): boolean {
  const site = headers['sec-fetch-site'];
  if (site !== undefined) return site === 'same-origin';
  const origin = headers.origin;
  if (origin === undefined) return true;
  if (origin === new URL(consoleUrl).origin) return true;
  // Served under another name than CONSOLE_URL (a port of its own, a proxy keeping Host).
  try {
    return new URL(origin).host === headers.host;
  } catch {
    return false;
  }
}
