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
}

export const BODY_LIMIT = 256 * 1024;

function parseJson(_req: unknown, body: string, done: (err: Error | null, value?: unknown) => void): void {
  if (body.trim() === '') return done(null, undefined);
  try {
    done(null, JSON.parse(body));
  } catch {
    done(Errors.invalidJson());
  }
}

export const bodyPlugin = fp(async (app) => {
  app.removeAllContentTypeParsers();
  // Clients often omit or mislabel Content-Type; the body is JSON whatever it says.
  app.addContentTypeParser('*', { parseAs: 'string', bodyLimit: BODY_LIMIT }, parseJson);
  app.addHook('preValidation', async (req) => {
    const { bodyRequired } = (req.routeOptions.config ?? {}) as RouteFlags;
    if (bodyRequired && (req.body === undefined || req.body === null)) throw Errors.bodyRequired();
    if (req.routeOptions.schema?.body && req.body === undefined) req.body = {};
  });
});
