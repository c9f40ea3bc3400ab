// Exit codes by error class, so scripts can tell a bad request from a busy service.
import { MediaApiError } from '@media/client';

export const EXIT = {
  ok: 0,
  /** Anything else (a local file missing, say). */
  failed: 1,
  /** The command line itself is wrong. */
  usage: 2,
  /** 401, 403: the key or the account. */
  auth: 3,
  /** 404: the directory, file or job. */
  notFound: 4,
  /** 400, 409 and other refusals: the request must change. */
  invalid: 5,
  /** 429, 503 after the retries: try again later. */
  busy: 6,
  /** 500s, a failed or cancelled job. */
  server: 7,
  /** No answer from the API. */
  network: 8,
  /** Ctrl-C (SIGINT) during an upload that a later run can continue: 128 + 2, as shells report it. */
  interrupted: 130,
} as const;

export function exitCodeOf(err: unknown): number {
  if (!(err instanceof MediaApiError)) return EXIT.failed;
  switch (err.kind) {
    case 'auth':
      return EXIT.auth;
    case 'not_found':
      return EXIT.notFound;
    case 'busy':
      return EXIT.busy;
    case 'server':
      return EXIT.server;
    case 'network':
      return EXIT.network;
    default:
      return EXIT.invalid;
  }
}
