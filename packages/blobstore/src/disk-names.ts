// Maps key segments to on-disk names and back. Names are readable for ASCII ("video.mp4" stays
// "video.mp4"), safe on case-insensitive file systems, never "." / ".." / hidden, and at most
// CHUNK characters per path component (file systems cap a name at 255 bytes; a 255-character
// Unicode file name is up to 1020 bytes before escaping).
//
//   a-z 0-9 _ -        kept as is
//   A-Z                "^" + lower-case letter
//   "." (not leading)  kept; a leading "." is escaped, so no name is hidden or "." / ".."
//   anything else      "%XX" per UTF-8 byte, upper-case hex
//   long segments      split into directories "~<chunk>/~<chunk>/<last chunk>"
//
// Letters are lower-case except hex digits after "%", which are always upper-case, so two
// different encodings never differ only by case.

const CHUNK = 200;

function encodeTokens(segment: string): string[] {
  const tokens: string[] = [];
  for (const ch of segment) {
    if (/^[a-z0-9_.-]$/.test(ch)) tokens.push(ch);
    else if (/^[A-Z]$/.test(ch)) tokens.push(`^${ch.toLowerCase()}`);
    else for (const byte of Buffer.from(ch, 'utf8')) tokens.push(`%${byte.toString(16).toUpperCase().padStart(2, '0')}`);
  }
  return tokens;
}

/** Path components (one or more) for one key segment. */
export function encodeSegment(segment: string): string[] {
  const parts: string[] = [];
  let current = '';
  for (const token of encodeTokens(segment)) {
    if (current.length + token.length > CHUNK) {
      parts.push(current);
      current = '';
    }
    // A component starting with "." would be hidden, or "." / "..".
    current += current === '' && token === '.' ? '%2E' : token;
  }
  parts.push(current);
  return parts.map((part, i) => (i < parts.length - 1 ? `~${part}` : part));
}

/** Relative on-disk path components for a (validated) key. */
export function encodeKey(key: string): string[] {
  return key.split('/').flatMap(encodeSegment);
}

/** True for a component that continues the segment in the directory below (see encodeSegment). */
export function isContinuation(name: string): boolean {
  return name.startsWith('~');
}

/**
 * Decodes the concatenated component bodies of one segment (continuation "~" markers removed:
 * a multi-byte character may straddle two chunks). Null for names this scheme never produces.
 */
export function decodeSegment(encoded: string): string | null {
  if (encoded.startsWith('.')) return null; // ".tmp" and other names we never write
  const bytes: number[] = [];
  for (let i = 0; i < encoded.length; i++) {
    const c = encoded[i]!;
    if (c === '^' && /^[a-z]$/.test(encoded[i + 1] ?? '')) bytes.push(encoded.charCodeAt(++i) - 32);
    else if (c === '%' && /^[0-9A-F]{2}$/.test(encoded.slice(i + 1, i + 3))) {
      bytes.push(parseInt(encoded.slice(i + 1, i + 3), 16));
      i += 2;
    } else if (/^[a-z0-9_.-]$/.test(c)) bytes.push(c.charCodeAt(0));
    else return null;
  }
  const raw = Buffer.from(bytes);
  const text = raw.toString('utf8');
  // Only names we wrote decode: they hold valid UTF-8 (the round trip is exact).
  return text.length > 0 && Buffer.from(text, 'utf8').equals(raw) ? text : null;
}
