// Turns the tail of ffmpeg's stderr into the short `<detail>` of "FFmpeg command failed with exit
// code <n>: <detail>". The text goes to API clients, so: no host paths, no pointers, no binary
// noise, and nothing a text parser may have echoed from a file it read.

const MAX_DETAIL_CHARS = 300;
const MAX_LINES = 3;
const MAX_QUOTED_CHARS = 60;

/**
 * Components that parse text files and quote lines of them in their errors. Their lines are
 * dropped whole: a playlist or list that names /etc/passwd must not become a way to read it.
 */
const TEXT_PARSERS = new Set(
  (
    'hls applehttp concat dash sdp rtp rtsp tty ffmetadata srt subrip ass ssa webvtt subviewer subviewer1 microdvd ' +
    'mpl2 mpsub pjs realtext sami stl jacosub lrc vplayer aqtitle scc http https tcp tls crypto data bin xbin idf adf lavfi'
  ).split(' '),
);

/** True for "[hls @ 0x..] ...", "[hls,applehttp @ 0x..] ...": a line logged by a text parser. */
function fromTextParser(line: string): boolean {
  const tag = /^\[([^\]\s@]+)/.exec(line)?.[1];
  return tag?.split(',').some((name) => TEXT_PARSERS.has(name.toLowerCase())) ?? false;
}

/** Lines that say nothing useful on their own. */
const NOISE = /^(Conversion failed!?|Exiting normally.*|Press \[q\].*)$/i;

export interface SanitizeOptions {
  /** Absolute work directory (and its realpath): removed so paths read "in/0", "out/a.mp4". */
  workDirs?: string[];
  /** Used when nothing printable remains. */
  fallback: string;
}

export function sanitizeDetail(lines: string[], opts: SanitizeOptions): string {
  const kept: string[] = [];
  for (const raw of lines) {
    const line = cleanLine(raw, opts.workDirs ?? []);
    if (!line || NOISE.test(line)) continue;
    if (kept[kept.length - 1] === line) continue; // ffmpeg repeats per-frame errors
    kept.push(line);
  }
  const picked = kept.slice(-MAX_LINES).join('; ');
  if (!picked) return opts.fallback;
  return picked.length > MAX_DETAIL_CHARS ? `${picked.slice(0, MAX_DETAIL_CHARS - 1)}…` : picked;
}

/** One stderr line made presentable, or '' when it must not be shown. */
function cleanLine(raw: string, workDirs: string[]): string {
  let line = raw.replace(/\x1b\[[0-9;]*[A-Za-z]/g, '');
  // Mostly-binary lines are input bytes echoed back, never a message.
  const unprintable = [...line].filter((c) => /[\x00-\x08\x0e-\x1f\x7f\ufffd]/.test(c)).length;
  if (unprintable > 0 && unprintable * 10 > line.length) return '';
  line = line.replace(/[\x00-\x1f\x7f\ufffd]/g, ' ');
  if (fromTextParser(line)) return '';
  for (const dir of workDirs) {
    if (dir)
      line = line
        .split(`${dir.replace(/\/+$/, '')}/`)
        .join('')
        .split(dir)
        .join('.');
  }
  line = line
    .replace(/ @ 0x[0-9a-f]+\]/gi, ']') // "[libx264 @ 0x55d...]" -> "[libx264]"
    .replace(/\bfile:(?=[^\s'"])/g, '') // our own "file:" prefix on every path
    .replace(/(^|[\s'"(=,])\/[^\s'",)]+/g, '$1<path>') // any absolute path left is not the client's business
    .replace(/(['"])([^'"]*)\1/g, (_m, q: string, body: string) =>
      body.length > MAX_QUOTED_CHARS ? `${q}${body.slice(0, MAX_QUOTED_CHARS)}…${q}` : `${q}${body}${q}`,
    )
    .replace(/\s+/g, ' ')
    .trim();
  return line;
}
