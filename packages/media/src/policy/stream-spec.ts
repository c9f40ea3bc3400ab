// Stream and metadata specifiers (the part after ':' in -c:v:0, -metadata:s:a:0, -map 0:a:1).
// Only the common forms are accepted; anything else is refused rather than interpreted.

const TYPED = String.raw`[vVasdt](?::\d{1,4})?`;
const INDEX = String.raw`\d{1,4}`;
const PROGRAM = String.raw`p:\d{1,9}(?::(?:${TYPED}|${INDEX}))?`;
const META = 'm:[A-Za-z0-9_]{1,32}(?::[A-Za-z0-9_.-]{1,64})?';
const STREAM = `(?:${TYPED}|${INDEX}|${PROGRAM}|${META})`;

/** v, a:0, 1, p:1:v, m:language:eng */
export const STREAM_SPECIFIER = new RegExp(`^${STREAM}$`);

/** g, s, s:a:0, c:1, p:0 (the -metadata / -map_metadata specifier). */
export const METADATA_SPECIFIER = new RegExp(String.raw`^(?:g|s(?::${STREAM})?|c:\d{1,4}|p:\d{1,9})$`);

/** The stream type a specifier selects, when it names one. */
export function specifierMedia(spec: string): 'video' | 'audio' | 'subtitle' | undefined {
  const t = /^(?:p:\d+:)?([vVas])/.exec(spec)?.[1];
  return t === 'a' ? 'audio' : t === 's' ? 'subtitle' : t === 'v' || t === 'V' ? 'video' : undefined;
}

/**
 * An input stream reference such as 0, 0:v, 1:a:0, or why it is not one. Used by -map and by
 * filtergraph input labels; the input index must exist.
 */
export function streamRefProblem(ref: string, inputCount: number): string | null {
  const m = /^(\d{1,3})(?::(.+))?$/.exec(ref);
  if (!m) return 'is not <input index>[:<stream specifier>]';
  const index = Number(m[1]);
  if (index >= inputCount)
    return `refers to input ${index}, but the task has ${inputCount} input${inputCount === 1 ? '' : 's'} (numbered from 0)`;
  if (m[2] !== undefined && !STREAM_SPECIFIER.test(m[2])) return `has an unsupported stream specifier '${m[2]}'`;
  return null;
}
