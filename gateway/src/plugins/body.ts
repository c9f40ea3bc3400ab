// Body rules of the spec: JSON only, at most 256 KB, a missing body and invalid JSON each answer
// 400 with their own sentence, unknown fields answer 400 (schemas say additionalProperties:false).
import fp from 'fastify-plugin';
import { Errors } from '@media/platform';

/** Per-route flags (route `config`). */
export interface RouteFlags {
  /** A missing body answers 400 "Request body is required". */
  bodyRequired?: boolean;
  /** No Authorization needed (retired and unavailable endpoints). */
  public?: boolean;
  /** Honours Idempotency-Key (plugins/idempotency.ts): the spec's POSTs. */
  idempotent?: boolean;
}

/** 256 KB in the spec's decimal units (its 5 GB is 5,000,000,000 bytes). */
export const BODY_LIMIT = 256_000;

// Text must arrive as it was meant: bytes that are not UTF-8, or a \u escape of half a surrogate
// pair, would otherwise become U+FFFD on the way to the services, and a file name, say, would be
// registered under a name the client never sent.
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/;
// With the u flag a whole pair is one code point, so \p{Surrogate} matches only a half (as in blob keys).
const LONE_SURROGATE = /\p{Surrogate}/u;

function hasLoneSurrogate(value: unknown): boolean {
  if (typeof value === 'string') return LONE_SURROGATE.test(value);
  if (value === null || typeof value !== 'object') return false;
  if (Array.isArray(value)) return value.some(hasLoneSurrogate);
  return Object.entries(value).some(([k, v]) => LONE_SURROGATE.test(k) || hasLoneSurrogate(v));
}

function parseJson(_req: unknown, raw: Buffer, done: (err: Error | null, value?: unknown) => void): void {
  let body: string;
  try {
    body = utf8.decode(raw);
  } catch {
    done(Errors.invalidRequest('Request body must be UTF-8 encoded JSON'));
    return;
  }
  if (body.trim() === '') {
    done(null, undefined);
    return;
  }
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    done(Errors.invalidJson());
    return;
  }
  if (SURROGATE_ESCAPE.test(body) && hasLoneSurrogate(value)) {
    done(Errors.invalidRequest('Text in the request body must be valid Unicode; a \\u escape of half a surrogate pair is not'));
    return;
  }
  done(null, value);
}

export const bodyPlugin = fp(async (app) => {
  app.removeAllContentTypeParsers();
  // Clients often omit or mislabel Content-Type; the body is JSON whatever it says.
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: BODY_LIMIT }, parseJson);
  app.addHook('preValidation', async (req) => {
    const { bodyRequired } = (req.routeOptions.config ?? {}) as RouteFlags;
    if (bodyRequired && (req.body === undefined || req.body === null)) throw Errors.bodyRequired();
    if (req.routeOptions.schema?.body && req.body === undefined) req.body = {};
  });
});
