// A single "bytes=" range (RFC 9110 section 14). Multiple ranges are answered with the whole
// body, which the RFC allows, rather than multipart/byteranges.

export type RangeResult = { kind: 'none' } | { kind: 'range'; start: number; end: number } | { kind: 'unsatisfiable' };

export function parseRange(header: string | undefined, size: number): RangeResult {
  if (!header) return { kind: 'none' };
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!match || (match[1] === '' && match[2] === '')) return { kind: 'none' }; // ignored, as the RFC says
  const [, first, last] = match as unknown as [string, string, string];
  if (first === '') {
    // Suffix range: the last N bytes.
    const length = Number(last);
    if (length === 0 || size === 0) return { kind: 'unsatisfiable' };
    return { kind: 'range', start: Math.max(0, size - length), end: size - 1 };
  }
  const start = Number(first);
  const end = last === '' ? size - 1 : Math.min(Number(last), size - 1);
  if (last !== '' && Number(last) < start) return { kind: 'none' }; // invalid: ignore
  if (start >= size) return { kind: 'unsatisfiable' };
  return { kind: 'range', start, end };
}
