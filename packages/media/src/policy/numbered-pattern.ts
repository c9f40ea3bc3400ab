// Numbered output names (thumb_%03d.png): the image muxer writes one file per frame, replacing the
// single %d / %0Nd / %Nd with the frame number (zero-padded to N) and %% with a literal %.
// These helpers follow ffmpeg's av_get_frame_filename2 so the runner can find what was written.

export interface NumberedPattern {
  /** Literal text before the number (with %% already turned into %). */
  prefix: string;
  /** Minimum digits (zero padding); 1 for plain %d. */
  width: number;
  /** Literal text after the number. */
  suffix: string;
}

const MAX_WIDTH = 9;

/**
 * Parses the % sequences of a name. Returns null when the name has no %; a NumberedPattern when it
 * has exactly one number directive; a string saying what is wrong otherwise (other % sequences,
 * two numbers, or %% without a number).
 */
export function parseNumberedPattern(name: string): NumberedPattern | null | string {
  if (!name.includes('%')) return null;
  let prefix = '';
  let suffix = '';
  let width = 0;
  let found = false;
  for (let i = 0; i < name.length; i++) {
    const c = name[i]!;
    if (c !== '%') {
      if (found) suffix += c;
      else prefix += c;
      continue;
    }
    const m = /^%(?:(%)|(0?)([1-9]\d*)?d)/.exec(name.slice(i));
    if (!m) return `has an unsupported % sequence at ${JSON.stringify(name.slice(i, i + 4))}; only %d, %0Nd and %% are allowed`;
    if (m[1]) {
      if (found) suffix += '%';
      else prefix += '%';
    } else {
      if (found) return 'has more than one number pattern (%d)';
      found = true;
      width = m[3] ? Number(m[3]) : 1;
      if (width > MAX_WIDTH) return `pads the number to ${width} digits; at most ${MAX_WIDTH} are allowed`;
    }
    i += m[0].length - 1;
  }
  if (!found) return 'uses %% without a number pattern (%d); % is only allowed in numbered names';
  return { prefix, width, suffix };
}

/** True when `name` is a valid numbered pattern such as thumb_%03d.png or frame%d.jpg. */
export function isNumberedPattern(name: string): boolean {
  const p = parseNumberedPattern(name);
  return p !== null && typeof p !== 'string';
}

export const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A regex matching exactly the file names a numbered pattern produces (thumb_001.png, thumb_1000.png). */
export function numberedPatternRegex(name: string): RegExp {
  const p = parseNumberedPattern(name);
  if (p === null || typeof p === 'string') throw new TypeError(`not a numbered pattern: ${name}`);
  const digits = p.width > 1 ? `\\d{${p.width},}` : '\\d+';
  return new RegExp(`^${escapeRegex(p.prefix)}${digits}${escapeRegex(p.suffix)}$`);
}

/** The file name for frame number n (thumb_%03d.png, 7 -> thumb_007.png). */
export function expandNumberedPattern(name: string, n: number): string {
  const p = parseNumberedPattern(name);
  if (p === null || typeof p === 'string') throw new TypeError(`not a numbered pattern: ${name}`);
  return `${p.prefix}${String(n).padStart(p.width, '0')}${p.suffix}`;
}

/** Counts the names in a directory listing that a numbered pattern produced. */
export function countNumberedFiles(name: string, listing: Iterable<string>): number {
  const re = numberedPatternRegex(name);
  let n = 0;
  for (const f of listing) if (re.test(f)) n++;
  return n;
}
