// Uploaded concat lists (ffconcat, or the plain "file 'a.mp4'" form), read as FFmpeg 5.1's concat
// demuxer reads them (libavformat/concatdec.c: a keyword per line, '#' comments, av_get_token
// quoting for names), checked entry by entry, and written back naming only the service's staged
// copies. An entry must name a file of the list's own directory; every directive that opens
// something or sets options is refused with the line it is on.
import { fileNameProblem } from './file-name.js';
import { pathOrUrlProblem } from './path-like.js';
import { hasControlChar, refuse, show } from './refuse.js';
import { parseCliTime } from './values/cli-values.js';
import { getToken } from './filtergraph/token.js';

export interface ConcatEntry {
  /** The file name as written in the list (unescaped), a file of the list's own directory. */
  file: string;
  /** Seconds, if given. */
  duration?: number;
  inpoint?: number;
  outpoint?: number;
  /** file_packet_metadata / file_packet_meta: key=value text. */
  packetMetadata?: string[];
}

export interface ConcatList {
  entries: ConcatEntry[];
}

export const MAX_CONCAT_ENTRIES = 1000;

const SPACE = ' \t';

/** Why a directive is refused. */
const REFUSED: Readonly<Record<string, string>> = {
  option: 'it sets demuxer options for the file',
  stream: 'stream mapping directives are not available; map streams with -map in the output',
  exact_stream_id: 'stream mapping directives are not available; map streams with -map in the output',
  stream_meta: 'stream mapping directives are not available',
  stream_codec: 'stream mapping directives are not available',
  stream_extradata: 'stream mapping directives are not available',
  chapter: 'chapter directives are not available; give chapters with an ffmetadata input and -map_chapters',
};

class Line {
  constructor(private text: string) {}

  /** get_keyword: up to the next space, then the spaces after it. */
  keyword(): string {
    this.text = this.text.replace(/^[ \t]+/, '');
    const m = /^[^ \t]*/.exec(this.text)![0];
    this.text = this.text.slice(m.length).replace(/^[ \t]+/, '');
    return m;
  }

  /** av_get_token with spaces as terminators: quotes and backslash escapes. */
  token(): string {
    const t = getToken(this.text, 0, SPACE);
    this.text = this.text.slice(t.next).replace(/^[ \t]+/, '');
    return t.value;
  }

  get rest(): string {
    return this.text;
  }
}

/** An entry name: a file of the same directory (an optional leading ./ is dropped). */
function entryName(raw: string, at: string): string {
  const name = raw.startsWith('./') ? raw.slice(2) : raw;
  const path = pathOrUrlProblem(raw);
  const where = `${at}: 'file ${raw}'`;
  if (path) refuse(`${where} names ${path}; entries must name files of the same directory, such as file 'part2.mp4'`);
  if (name.includes('/') || name.includes('\\'))
    refuse(`${where} names a path; entries must name files of the same directory, such as file 'part2.mp4'`);
  const problem = fileNameProblem(name);
  if (problem) refuse(`${where}: the file name ${problem}`);
  return name;
}

function seconds(kw: string, value: string, at: string): number {
  const s = parseCliTime(value);
  if (s === undefined || s < 0) refuse(`${at}: ${show(value)} after '${kw}' is not a time (give seconds such as 5 or 00:00:05.5)`);
  return s;
}

/** Parses a list; refuses (400, naming the line) anything that is not allowed. */
export function parseConcatList(text: string, where: string, maxEntries = MAX_CONCAT_ENTRIES): ConcatList {
  if (hasControlChar(text.replace(/[\t\r\n]/g, ''))) refuse(`${where} holds control characters; a concat list is a text file`);
  const entries: ConcatEntry[] = [];
  const lines = text.split(/\r\n|\r|\n/);
  lines.forEach((raw, i) => {
    const at = `${where}, line ${i + 1}`;
    const line = new Line(raw);
    const kw = line.keyword();
    if (kw === '' || kw.startsWith('#')) return;
    const current = entries[entries.length - 1];
    const needsFile = () => {
      if (!current) refuse(`${at}: '${kw}' must follow a 'file' line`);
      return current!;
    };
    switch (kw) {
      case 'ffconcat': {
        const version = line.keyword();
        const number = line.keyword();
        if (version !== 'version' || number !== '1.0') refuse(`${at}: the header must read 'ffconcat version 1.0'`);
        break;
      }
      case 'file': {
        const name = line.token();
        if (name === '') refuse(`${at}: 'file' needs a file name`);
        if (entries.length >= maxEntries) refuse(`${where} names more than ${maxEntries} files`);
        entries.push({ file: entryName(name, at) });
        break;
      }
      case 'duration':
      case 'inpoint':
      case 'outpoint': {
        needsFile()[kw as 'duration' | 'inpoint' | 'outpoint'] = seconds(kw, line.keyword(), at);
        break;
      }
      case 'file_packet_metadata':
      case 'file_packet_meta': {
        const entry = needsFile();
        const value = kw === 'file_packet_meta' ? `${line.keyword()}=${line.token()}` : line.token();
        entry.packetMetadata ??= [];
        entry.packetMetadata.push(value);
        break;
      }
      default:
        if (Object.hasOwn(REFUSED, kw)) refuse(`${at}: '${kw}' is not allowed: ${REFUSED[kw]}`);
        refuse(`${at}: ${show(kw)} is not a concat list directive (file, duration, inpoint, outpoint, file_packet_metadata)`);
    }
    if (line.rest !== '' && !line.rest.startsWith('#')) refuse(`${at}: unexpected ${show(line.rest)} at the end of the line`);
  });
  if (entries.length === 0) refuse(`${where} names no file`);
  return { entries };
}

/** A token av_get_token reads back as exactly `s`: quoted, with each ' written as '\''. */
const quote = (s: string) => `'${s.replace(/'/g, "'\\''")}'`;
const time = (s: number) => String(Number(s.toFixed(6)));

/** An ffconcat 1.0 list naming stagedNames[i] for entry i, with its timing and packet metadata. */
export function writeConcatList(list: ConcatList, stagedNames: readonly string[]): string {
  const lines = ['ffconcat version 1.0'];
  list.entries.forEach((e, i) => {
    lines.push(`file ${quote(stagedNames[i]!)}`);
    if (e.duration !== undefined) lines.push(`duration ${time(e.duration)}`);
    if (e.inpoint !== undefined) lines.push(`inpoint ${time(e.inpoint)}`);
    if (e.outpoint !== undefined) lines.push(`outpoint ${time(e.outpoint)}`);
    for (const m of e.packetMetadata ?? []) lines.push(`file_packet_metadata ${quote(m)}`);
  });
  return `${lines.join('\n')}\n`;
}
