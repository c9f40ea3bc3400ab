// Output names the spec allows (1 to 255 characters of any script: up to about 1 KB of UTF-8)
// may be longer than a Linux file name (255 bytes). ffmpeg writes such an output under a short
// name of the service's, in a folder of out/ (a user's name has no slash, so none can clash with
// it), and its files are reported under the user's name. The extension stays: muxers are chosen
// by it. Playlists (HLS, DASH) name their segments inside their text, so they keep their names
// and are limited to what a disk can hold (MAX_PLAYLIST_NAME_BYTES, checked when planning).
import { escapeRegex, parseNumberedPattern, type NumberedPattern } from '../policy/numbered-pattern.js';

/** Names up to this many bytes are written as they are (room for a muxer's ".tmp" beside them). */
export const MAX_DISK_NAME_BYTES = 240;
/** A playlist's name leaves room for its segments' numbers and extension. */
export const MAX_PLAYLIST_NAME_BYTES = 200;
/** The folder of out/ holding outputs written under the service's names. */
export const LONG_NAMES_DIR = '.long';

const fileExtension = (name: string): string => /\.[A-Za-z0-9]{1,16}$/.exec(name)?.[0] ?? '';

export interface DiskNamed<T> {
  /** The outputs as ffmpeg writes them (long names replaced). */
  outputs: T[];
  /** Whether an output is written under another name (its folder must exist). */
  renamed: boolean;
  /** A written file's name relative to out/ -> the name the user gave (or its expansion). */
  userName(diskName: string): string;
}

export function diskNames<T extends { fileName: string; kind: string }>(outputs: readonly T[]): DiskNamed<T> {
  const back = new Map<string, string>();
  const patterns: Array<{ re: RegExp; pattern: NumberedPattern }> = [];
  const mapped = outputs.map((o, i) => {
    // Playlists and segment lists name their files inside their text: planning kept those names short.
    if (Buffer.byteLength(o.fileName) <= MAX_DISK_NAME_BYTES || o.kind === 'hls' || o.kind === 'dash' || o.kind === 'segments') return o;
    const pattern = o.kind === 'numbered' ? parseNumberedPattern(o.fileName) : null;
    if (pattern !== null && typeof pattern === 'object') {
      const ext = fileExtension(pattern.suffix);
      patterns.push({ re: new RegExp(`^${escapeRegex(LONG_NAMES_DIR)}/${i}_(\\d+)${escapeRegex(ext)}$`), pattern });
      return { ...o, fileName: `${LONG_NAMES_DIR}/${i}_%0${pattern.width}d${ext}` };
    }
    const disk = `${LONG_NAMES_DIR}/${i}${fileExtension(o.fileName)}`;
    back.set(disk, o.fileName);
    return { ...o, fileName: disk };
  });
  return {
    outputs: mapped,
    renamed: back.size + patterns.length > 0,
    userName(diskName) {
      const exact = back.get(diskName);
      if (exact !== undefined) return exact;
      for (const { re, pattern } of patterns) {
        const m = re.exec(diskName);
        if (m) return `${pattern.prefix}${m[1]}${pattern.suffix}`;
      }
      return diskName;
    },
  };
}
