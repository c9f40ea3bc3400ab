// Segment outputs (-f segment, out_%03d.mp4): one file per part, named by the output's numbered
// pattern, bounded like numbered images. The parts' container (-segment_format or the name's
// extension) must be a muxer that writes one file; the segment list (-segment_list) is a plain
// name written next to the parts and returned with them. The file bound is held by ffmpeg itself:
// -segment_wrap (pinned) makes part numbers wrap, so the parts can never be more files than the
// output's share plus its first number plus one, and the runner fails the run as soon as there
// are more parts than the share (ffmpeg/outputs.ts).
import { muxerForExtension } from '../catalogue/lookup.js';
import { CATALOGUE } from '../catalogue/catalogue.js';
import { fileNameProblem } from '../file-name.js';
import { LIMITS } from '../limits.js';
import { escapeRegex, type NumberedPattern } from '../numbered-pattern.js';
import { checkOptionValue } from '../options/check-value.js';
import { resolveAvOption, type AvScope } from '../options/read-options.js';
import { pathOrUrlProblem } from '../path-like.js';
import { refuse, show } from '../refuse.js';
import { entryVerdict, refusalText } from '../verdicts/index.js';
import type { PlannedOutput } from './types.js';
import { MAX_DISK_NAME_BYTES, MAX_PLAYLIST_NAME_BYTES } from '../../ffmpeg/disk-names.js';

/** What this module needs of an output draft (plan/outputs.ts). */
interface SegmentDraft {
  fileName: string;
  ext: string;
  pattern: NumberedPattern | null;
}

/** Muxers a part may not be written with: they write further files, or none. */
const NOT_A_PART: Readonly<Record<string, string>> = {
  hls: 'it writes a playlist and segments of its own; use -f hls instead of -f segment',
  dash: 'it writes a manifest and segments of its own; use -f dash instead of -f segment',
  image2: 'it writes one file per frame; name the output thumb_%03d.png without -f segment',
  null: 'it writes nothing; use -f null without -f segment',
  segment: 'a part cannot be split again',
};

/** The kind of a -f segment output: its name must be a numbered pattern. */
export function segmentsKind(file: string, pattern: NumberedPattern | null): 'segments' {
  if (pattern === null) {
    const dot = file.lastIndexOf('.');
    const example = dot > 0 ? `${file.slice(0, dot)}_%03d${file.slice(dot)}` : `${file}_%03d.mp4`;
    refuse(
      `Output ${show(file)} uses -f segment, which writes one file per part: name it with a number pattern such as ${show(example)} (out_%03d.mp4)`,
    );
  }
  if (Buffer.byteLength(file) > MAX_PLAYLIST_NAME_BYTES) {
    refuse(
      `Output ${show(file)} is written as parts whose names a segment list holds, so its name must fit on a disk: at most ${MAX_PLAYLIST_NAME_BYTES} bytes of UTF-8; give it a shorter name`,
    );
  }
  return 'segments';
}

/** The catalogue key of a muxer named by one of its names (-segment_format matroska). */
function muxerKey(name: string): string | undefined {
  return Object.keys(CATALOGUE.muxers).find((k) => k.split(',').includes(name));
}

/** The muxer that writes each part: -segment_format, else the one of the name's extension. */
function partMuxer(d: SegmentDraft, format: string | undefined): string {
  const name = format ?? muxerForExtension(d.ext);
  if (name === undefined)
    refuse(`Output ${show(d.fileName)} needs an extension that names the parts' format (.mp4, .ts, .mkv...) or -segment_format`);
  const key = muxerKey(name);
  const verdict = key === undefined ? undefined : entryVerdict('muxer', key);
  const what = format === undefined ? `by its extension .${d.ext}` : `with -segment_format ${show(format)}`;
  if (key === undefined || verdict === undefined) refuse(`Output ${show(d.fileName)} names no muxer of this FFmpeg build ${what}`);
  if (verdict.verdict === 'refuse')
    refuse(`Output ${show(d.fileName)} writes its parts ${what} with the ${key} muxer, which is not allowed: ${refusalText(verdict)}`);
  const not = NOT_A_PART[key];
  if (not) refuse(`Output ${show(d.fileName)} cannot write its parts ${what} with the ${key} muxer: ${not}`);
  return key;
}

/** -segment_format_options k=v:k=v, each judged as an option of the parts' muxer. */
function checkPartOptions(d: SegmentDraft, inner: string, raw: string): void {
  const scope: AvScope = {
    side: 'output',
    codecs: { video: [], audio: [], subtitle: [], data: [] },
    formats: [inner],
    describe: `the parts of ${show(d.fileName)} (${inner} muxer)`,
  };
  if (/['"\\]/.test(raw)) refuse(`Option '-segment_format_options' takes key=value pairs joined by ':' without quotes or escapes`);
  for (const pair of raw.split(':')) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    if (eq <= 0) refuse(`Option '-segment_format_options' takes key=value pairs joined by ':'; ${show(pair)} is not one`);
    const name = pair.slice(0, eq);
    const value = pair.slice(eq + 1);
    const resolved = resolveAvOption({ token: `-${name}`, at: 0, name, spec: null, value }, scope).filter(
      (r) => r.owner === inner || r.owner === 'AVFormatContext',
    );
    if (resolved.length === 0) refuse(`Option '-segment_format_options' names ${show(name)}, which is not an option of the ${inner} muxer`);
    for (const r of resolved) {
      const what = `Option ${show(name)} of '-segment_format_options' (${r.owner})`;
      if (r.verdict === undefined) refuse(`${what} is not allowed: it has not been judged for this FFmpeg build yet`);
      checkOptionValue(r.opt, r.verdict, value, { what });
    }
  }
}

/** -segment_times and -segment_frames: a list of split points gives at most one part more. */
function splitPoints(av: ReadonlyMap<string, string>): number | undefined {
  const list = av.get('segment_times') ?? av.get('segment_frames');
  return list === undefined ? undefined : list.split(',').length;
}

/** The segment list: a plain name, written next to the parts (ffmpeg picks its type by extension). */
function listName(d: SegmentDraft, raw: string, pattern: RegExp): string {
  const problem =
    fileNameProblem(raw) ??
    (pathOrUrlProblem(raw) ? `must be a plain file name, not ${pathOrUrlProblem(raw)}` : null) ??
    (raw.includes('%') ? 'must not hold %' : null) ??
    (raw.includes(':') ? "must not hold ':'" : null) ??
    (Buffer.byteLength(raw) > MAX_DISK_NAME_BYTES ? `must be at most ${MAX_DISK_NAME_BYTES} bytes of UTF-8` : null) ??
    (pattern.test(raw) || raw === d.fileName ? "must differ from the parts' names" : null);
  if (problem)
    refuse(
      `Option '-segment_list' ${show(raw)} ${problem}: name the list like an output (parts.m3u8, parts.csv, parts.ffconcat); it is written next to the parts and returned with them`,
    );
  return raw;
}

/** The service's options of a segment output; planTask adds -segment_wrap once it shares the file budget out. */
export function addSegmentOptions(d: SegmentDraft, planned: PlannedOutput, av: ReadonlyMap<string, string>): void {
  const inner = partMuxer(d, av.get('segment_format'));
  const formatOptions = av.get('segment_format_options');
  if (formatOptions !== undefined) checkPartOptions(d, inner, formatOptions);
  const p = d.pattern!;
  const digits = p.width > 1 ? `\\d{${p.width},}` : '\\d+';
  const partsRegex = `${escapeRegex(p.prefix)}${digits}${escapeRegex(p.suffix)}`;
  const requested = av.get('segment_list');
  const list = requested === undefined ? undefined : listName(d, requested, new RegExp(`^${partsRegex}$`));
  if (list !== undefined) {
    // Written by the service's name for it, inside out/ (the user's value was only a name; an
    // option is given at most once, tokenizeOptions).
    const at = planned.args.indexOf('-segment_list');
    planned.args[at + 1] = `file:out/${list}`;
  }
  planned.extraFiles = `^(?:${partsRegex}${list === undefined ? '' : `|${escapeRegex(list)}`})$`;
  const startNumber = Number(av.get('segment_start_number') ?? 0);
  planned.segments = { startNumber, ...(list === undefined ? {} : { list }) };
  const points = splitPoints(av);
  if (points !== undefined && points + 1 > LIMITS.maxFilesPerTask)
    refuse(
      `Output ${show(d.fileName)} splits at ${points} points, which makes ${points + 1} parts; a task writes at most ${LIMITS.maxFilesPerTask} files`,
    );
  planned.maxFiles = points === undefined ? 0 : points + 1;
}

/** -segment_wrap for a segment output of `parts` parts at most: see the head of this file. */
export function segmentWrap(planned: PlannedOutput): string[] {
  return ['-segment_wrap', String(planned.maxFiles + (planned.segments?.startNumber ?? 0) + 1)];
}
