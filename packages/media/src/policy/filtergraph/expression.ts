// ffmpeg's expression language (libavutil/eval.c) has three functions whose cost has no bound:
// while() loops until its condition is false, and root() and taylor() iterate, multiplying when
// nested. eval.c takes a function's name up to the first character that cannot be part of a name
// and then skips to the next '(': `while+(1,1)` and `while x(1,1)` are while(1,1). So the names are
// refused wherever they stand as a whole identifier, not only when a '(' follows.
const UNBOUNDED = /(?<![A-Za-z0-9_])(while|root|taylor)(?![A-Za-z0-9_])/;

/** The unbounded expression function a value names ('while', 'root' or 'taylor'), or null. */
export function unboundedExpressionFunction(value: string): string | null {
  return UNBOUNDED.exec(value)?.[1] ?? null;
}
