// A Connect response seen by an interceptor: a streaming call goes on after the interceptor has
// returned, so its errors and its end are met while its messages are read. Helpers for both, kept
// apart from the interceptors so tracing and the in-flight registry use them without the logger.
import type { StreamResponse, UnaryResponse } from '@connectrpc/connect';

/** `res` with its stream's messages passed through `wrap` (a unary response as it is). */
function rewrapStream<R extends UnaryResponse | StreamResponse>(
  res: R,
  wrap: (messages: AsyncIterable<unknown>) => AsyncIterable<unknown>,
): R {
  return res.stream ? { ...res, message: wrap(res.message) } : res;
}

/**
 * A response whose stream, if it is one, throws `map(err)` in place of an error met while its
 * messages are read (a streaming call fails there, after the interceptor has returned).
 */
export function mapStreamErrors<R extends UnaryResponse | StreamResponse>(res: R, map: (err: unknown) => unknown): R {
  return rewrapStream(res, async function* (messages) {
    try {
      yield* messages;
    } catch (err) {
      throw map(err);
    }
  });
}

/** Calls `done` once the call is over: now for a unary response, after a stream's last message (or its failure). */
export function whenCallEnds<R extends UnaryResponse | StreamResponse>(res: R, done: () => void): R {
  if (!res.stream) done();
  return rewrapStream(res, async function* (messages) {
    try {
      yield* messages;
    } finally {
      done();
    }
  });
}
