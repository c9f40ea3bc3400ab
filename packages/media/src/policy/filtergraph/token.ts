// ffmpeg's av_get_token, reproduced exactly: it is how libavfilter reads filter names, labels and
// argument strings, so the policy must read them the same way (quotes, backslash escapes, trimming).

export const WHITESPACES = ' \n\t\r';

export interface Token {
  value: string;
  /** Index just after the token (at the terminator or the end). */
  next: number;
}

/**
 * Reads a token from `s` at `pos`, stopping at an unquoted, unescaped character of `term`.
 * Leading whitespace is skipped; `\x` yields x; '...' yields its content verbatim (no escapes
 * inside); trailing whitespace is dropped unless it was quoted or escaped.
 */
export function getToken(s: string, pos: number, term: string): Token {
  let p = pos;
  while (p < s.length && WHITESPACES.includes(s[p]!)) p++;
  let out = '';
  // Length of `out` that must survive trailing-whitespace trimming.
  let end = 0;
  while (p < s.length && !term.includes(s[p]!)) {
    const c = s[p++]!;
    if (c === '\\' && p < s.length) {
      out += s[p++]!;
      end = out.length;
    } else if (c === "'") {
      while (p < s.length && s[p] !== "'") out += s[p++]!;
      if (p < s.length) {
        p++;
        end = out.length;
      }
    } else {
      out += c;
    }
  }
  let keep = out.length;
  while (keep > end && WHITESPACES.includes(out[keep - 1]!)) keep--;
  return { value: out.slice(0, keep), next: p };
}

/** Skips whitespace from pos. */
export function skipSpace(s: string, pos: number): number {
  let p = pos;
  while (p < s.length && WHITESPACES.includes(s[p]!)) p++;
  return p;
}
