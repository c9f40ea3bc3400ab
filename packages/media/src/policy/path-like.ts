// Does a value name a file, a URL or an ffmpeg protocol? Applied to every filter argument, after
// unescaping, as a second line behind the allow-lists: no allowed option or filter takes a path, so
// a value that looks like one is refused (option values that fail their kind get the same wording).
// -metadata values are not checked: ffmpeg writes them into the file as text and never opens them.

/** ffmpeg protocol names (ffmpeg -protocols, all builds we know of). */
export const PROTOCOLS = [
  'amqp',
  'android_content',
  'async',
  'bluray',
  'cache',
  'concat',
  'concatf',
  'crypto',
  'data',
  'dtls',
  'fd',
  'ffrtmpcrypt',
  'ffrtmphttp',
  'file',
  'ftp',
  'gopher',
  'gophers',
  'hls',
  'http',
  'httpproxy',
  'https',
  'icecast',
  'ipfs',
  'ipns',
  'librist',
  'md5',
  'mmsh',
  'mmst',
  'pipe',
  'prompeg',
  'rist',
  'rtmp',
  'rtmpe',
  'rtmps',
  'rtmpt',
  'rtmpte',
  'rtmpts',
  'rtp',
  'sctp',
  'sftp',
  'smb',
  'srt',
  'srtp',
  'subfile',
  'tcp',
  'tee',
  'tls',
  'udp',
  'udplite',
  'unix',
  'whip',
  'zmq',
] as const;

const PROTOCOL_SET: ReadonlySet<string> = new Set(PROTOCOLS);

// A scheme-looking word at the start or after a non-word character, followed by ':' or ','
// (ffmpeg's subfile takes "subfile,,start,...:"). Scheme characters as in ffmpeg's URL_SCHEME_CHARS.
const SCHEME_CANDIDATE = /(?:^|[^A-Za-z0-9+.-])([A-Za-z][A-Za-z0-9+.-]*)(?=[:,])/g;

/**
 * A short reason when `value` names a path, URL or protocol ("a URL", "the protocol 'file:'",
 * "a path"), or null when it does not. Numbers such as ".5" and ratios such as "iw/2" pass.
 */
export function pathOrUrlProblem(value: string): string | null {
  const v = value.trim();
  if (v.includes('://')) return 'a URL';
  if (v.includes('\\')) return 'a path (backslash)';
  if (/^[/~]/.test(v)) return 'a path';
  if (/^\.(?![0-9])/.test(v)) return 'a path';
  if (/(^|[/\s])\.\.?\//.test(v)) return 'a path';
  if (/^[A-Za-z]:[/\\]/.test(v)) return 'a path';
  for (const m of v.matchAll(SCHEME_CANDIDATE)) {
    const scheme = m[1]!.toLowerCase();
    const next = v[(m.index ?? 0) + m[0].length];
    // Nested protocols are written "crypto+file:"; each part counts.
    const parts = scheme.split('+');
    if (parts.some((p) => PROTOCOL_SET.has(p))) {
      if (next === ',' && !parts.includes('subfile')) continue;
      return `the protocol '${scheme}${next}'`;
    }
  }
  return null;
}
