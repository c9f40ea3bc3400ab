// One output of a task: its muxer and kind (from -f or the file name), then every option checked
// against ffmpeg's own options and the AVOptions of the muxer and encoders in effect, and the
// service's own options for its kind (segment names of HLS and DASH, the bound of numbered images).
import { defaultEncoder, muxerForExtension, type StreamType } from '../catalogue/lookup.js';
import type { CheckedGraph } from '../filter-policy.js';
import { extensionOf } from '../file-name.js';
import { parseNumberedPattern, type NumberedPattern } from '../numbered-pattern.js';
import { checkCliValue } from '../options/cli-value.js';
import { checkOptionValue } from '../options/check-value.js';
import { refuseNoEffect, resolveAvOption, tokenizeOptions, type AvScope, type RawOption } from '../options/read-options.js';
import { refuse, show } from '../refuse.js';
import { specifierMedia } from '../stream-spec.js';
import { entryVerdict, refusalText } from '../verdicts/index.js';
import type { SideKind } from '../verdicts/types.js';
import type { PlannedOutput } from './types.js';
import type { TaskOutput } from '@media/proto/media/jobs/v1/jobs_pb.js';
import { MAX_PLAYLIST_NAME_BYTES } from '../../ffmpeg/disk-names.js';
import { addSegmentOptions, segmentsKind } from './segments.js';

/** What an output is, read before its options are checked (the task needs every output's kind first). */
export interface OutputDraft {
  index: number;
  fileName: string;
  where: string;
  raw: RawOption[];
  muxer: string;
  kind: PlannedOutput['kind'];
  ext: string;
  pattern: NumberedPattern | null;
}

/** Image muxers that write one file per frame for a numbered name. */
const IMAGE_SEQUENCE_MUXERS = new Set(['image2']);

export function draftOutput(spec: TaskOutput, index: number): OutputDraft {
  const where = `task.outputs[${index}].options`;
  const mapTokens = spec.maps.flatMap((m) => ['-map', m]);
  const raw = tokenizeOptions([...mapTokens, ...spec.options], where);
  const ext = extensionOf(spec.file);
  const pattern = parseNumberedPattern(spec.file);
  if (typeof pattern === 'string') refuse(`task.outputs[${index}].file ${show(spec.file)} ${pattern}`);
  const f = raw.find((o) => o.cli?.rule.name === 'f');
  let muxer: string;
  if (f) {
    muxer = checkCliValue(f, { side: 'output', where, inputCount: 0 }).format!;
  } else {
    const byExt = muxerForExtension(ext);
    if (!byExt)
      refuse(
        `Output ${show(spec.file)} needs a file extension that names a format (.mp4, .mkv, .mp3, .png, .m3u8...) or -f in its options`,
      );
    const verdict = entryVerdict('muxer', byExt);
    if (!verdict || verdict.verdict === 'refuse')
      refuse(
        `Output ${show(spec.file)} selects the ${byExt} muxer by its extension, which is not allowed: ${verdict ? refusalText(verdict) : 'it has not been judged yet'}`,
      );
    muxer = byExt;
  }
  let kind: PlannedOutput['kind'] = 'file';
  if (muxer === 'null') kind = 'report';
  else if (muxer === 'hls') kind = 'hls';
  else if (muxer === 'dash') kind = 'dash';
  else if (muxer === 'segment') kind = segmentsKind(spec.file, pattern);
  else if (pattern !== null) {
    if (!IMAGE_SEQUENCE_MUXERS.has(muxer))
      refuse(`Output ${show(spec.file)} is a numbered pattern; those are for image files (.png, .jpg, ...) written one per frame`);
    kind = 'numbered';
  }
  if ((kind === 'hls' || kind === 'dash') && Buffer.byteLength(spec.file) > MAX_PLAYLIST_NAME_BYTES) {
    refuse(
      `Output ${show(spec.file)} is a playlist, which names its segments after itself inside its text, so its name must fit on a disk with theirs: at most ${MAX_PLAYLIST_NAME_BYTES} bytes of UTF-8 (${MAX_PLAYLIST_NAME_BYTES} ASCII characters, about ${Math.floor(MAX_PLAYLIST_NAME_BYTES / 3)} Japanese ones); give it a shorter name`,
    );
  }
  if (kind !== 'numbered' && kind !== 'segments' && pattern !== null)
    refuse(`Output ${show(spec.file)} may only hold a number pattern (%d) when it is written as numbered images or parts (-f segment)`);
  return { index, fileName: spec.file, where, raw, muxer, kind, ext, pattern };
}

export interface OutputContext {
  /** task.inputs.length (stream references are checked against the media inputs afterwards). */
  inputCount: number;
  sideFile: (use: SideKind | 'attachment', value: string, what: string) => string;
  instanceName?: (scope: string) => (filter: string, position: number) => string;
}

/** What the planner needs to know of a checked output. */
export interface OutputFacts {
  /** -map values: a graph label, or an input stream (optional: `1:a?`, which may select nothing). */
  maps: Array<{ label: string } | { input: number; spec: string | null; optional: boolean }>;
  /** Inputs some of whose streams a negative -map (-map -1:a) takes out again. */
  unmapped: number[];
  simpleGraphs: Array<{ media: 'video' | 'audio' | undefined; graph: CheckedGraph }>;
  complexGraphs: CheckedGraph[];
  /** -t, -to, -fs or -frames: ffmpeg stops it without waiting for every stream's end. */
  hasBound: boolean;
  /** -shortest: ffmpeg stops it when its shortest stream ends, which bounds it only if one of them does. */
  shortest: boolean;
  /** Stream types it drops (-vn, -an): ffmpeg's automatic selection then picks none of them. */
  dropped: Array<'video' | 'audio'>;
  /** The largest -frames value given (ffmpeg applies the last match per stream, whatever the specifier). */
  largestFrames?: number;
  /** A -frames with a specifier that reaches the video stream (none, v, v:0, V). */
  framesCoverVideo: boolean;
  instances: string[];
  /** Names of the filters those instances are. */
  filters: string[];
}

const FRAME_BOUND_SPECS: ReadonlySet<string | null> = new Set([null, 'v', 'v:0', 'V']);
const SINGLE_STREAM_MAP = /^(\[[^\]]+\]|\d+:(?:[vV]:)?\d+\??)$/;
const STREAM_TYPES: readonly StreamType[] = ['video', 'audio', 'subtitle', 'data'];

function codecsInEffect(d: OutputDraft): { codecs: Record<StreamType, string[]>; copied: Set<StreamType> } {
  const named: Record<StreamType, string[]> = { video: [], audio: [], subtitle: [], data: [] };
  const copied = new Set<StreamType>();
  const seen = new Set<StreamType>();
  for (const o of d.raw) {
    if (!o.cli || o.name !== 'c' || o.value === undefined) continue;
    const media = o.spec === null ? undefined : specifierMedia(o.spec);
    const types: readonly StreamType[] = media ? [media] : STREAM_TYPES;
    const checked = checkCliValue(o, { side: 'output', where: d.where, inputCount: 0 }).codec!;
    for (const t of types) {
      seen.add(t);
      if (checked === 'copy') copied.add(t);
      else if (checked.type === t || !media) named[t].push(checked.name);
    }
  }
  // ffmpeg picks a segment output's encoders by its file name, as for the muxer of its extension.
  const defaultsOf = d.kind === 'segments' ? (muxerForExtension(d.ext) ?? d.muxer) : d.muxer;
  for (const t of ['video', 'audio', 'subtitle'] as const) {
    if (seen.has(t)) continue;
    const byDefault = defaultEncoder(defaultsOf, d.ext, t);
    if (byDefault) named[t].push(byDefault);
  }
  return { codecs: named, copied };
}

function describe(d: OutputDraft, codecs: Record<StreamType, string[]>): string {
  const encoders = [...new Set(STREAM_TYPES.flatMap((t) => codecs[t]))];
  return `output ${show(d.fileName)} (${d.muxer} muxer${encoders.length ? `; ${encoders.join(', ')} encoder${encoders.length > 1 ? 's' : ''}` : ''})`;
}

export function checkOutput(d: OutputDraft, ctx: OutputContext): { planned: PlannedOutput; facts: OutputFacts } {
  const { codecs } = codecsInEffect(d);
  const scope: AvScope = { side: 'output', codecs, formats: [d.muxer], describe: describe(d, codecs) };
  const args: string[] = [];
  const facts: OutputFacts = {
    maps: [],
    simpleGraphs: [],
    complexGraphs: [],
    unmapped: [],
    hasBound: false,
    shortest: false,
    dropped: [],
    framesCoverVideo: false,
    instances: [],
    filters: [],
  };
  const namer = ctx.instanceName?.(`o${d.index}`);
  const avValues = new Map<string, string>();
  let update = false;
  for (const o of d.raw) {
    const sideFile = (use: SideKind | 'attachment', value: string, what: string) => ctx.sideFile(use, value, what);
    if (o.cli) {
      const rule = o.cli.rule;
      if (rule.refuse)
        refuse(
          `Option ${show(o.token)} is not allowed: ${rule.refuse.reason}${rule.refuse.instead ? `; instead, ${rule.refuse.instead}` : ''}`,
        );
      if (rule.where === 'input')
        refuse(`Option ${show(o.token)} is an input option: put it in the options of the input it applies to (task.inputs[i].options)`);
      if (rule.ignored) continue;
      const checked = checkCliValue(o, {
        side: 'output',
        where: d.where,
        inputCount: ctx.inputCount,
        sideFile,
        ...(namer ? { instanceName: namer } : {}),
      });
      args.push(o.token);
      if (o.value !== undefined) args.push(checked.value);
      switch (o.name) {
        case 'map':
          if (checked.mapLabel !== undefined) facts.maps.push({ label: checked.mapLabel });
          else if (checked.mapInput)
            facts.maps.push({ input: checked.mapInput.index, spec: checked.mapInput.spec, optional: checked.value.endsWith('?') });
          else facts.unmapped.push(Number(/^-(\d+)/.exec(checked.value)?.[1] ?? -1));
          break;
        case 'filter': {
          const media = o.spec === null ? undefined : specifierMedia(o.spec);
          facts.simpleGraphs.push({ media: media === 'video' || media === 'audio' ? media : undefined, graph: checked.graph! });
          break;
        }
        case 'filter_complex':
          facts.complexGraphs.push(checked.graph!);
          break;
        case 't':
        case 'to':
        case 'fs':
          if (!o.cli.negated) facts.hasBound = true;
          break;
        case 'shortest':
          facts.shortest = !o.cli.negated;
          break;
        case 'vn':
        case 'an':
          if (!o.cli.negated) facts.dropped.push(o.name === 'vn' ? 'video' : 'audio');
          break;
        case 'frames':
          facts.hasBound = true;
          facts.largestFrames = Math.max(facts.largestFrames ?? 0, checked.number ?? Number(checked.value));
          if (FRAME_BOUND_SPECS.has(o.spec)) facts.framesCoverVideo = true;
          break;
      }
      if (checked.graph) {
        facts.instances.push(...checked.graph.instances.filter((x): x is string => x !== undefined));
        facts.filters.push(...checked.graph.filters);
      }
      continue;
    }
    const resolved = resolveAvOption(o, scope);
    if (resolved.length === 0) refuseNoEffect(o, scope, d.where);
    let value: string | undefined;
    for (const r of resolved) {
      const what = `Option ${show(o.token)} (${r.owner})`;
      if (r.verdict === undefined) refuse(`${what} is not allowed: it has not been judged for this FFmpeg build yet`);
      const canonical = checkOptionValue(r.opt, r.verdict, o.value!, { what, sideFile });
      value = value === undefined || value === canonical ? canonical : o.value!;
    }
    avValues.set(o.name, value!);
    if (o.name === 'update') update = value === '1' || value === 'true';
    args.push(o.token, value!);
  }
  const planned: PlannedOutput = { index: d.index, fileName: d.fileName, kind: d.kind, muxer: d.muxer, args, maxFiles: 1 };
  addKindOptions(d, planned, facts, avValues, update);
  if (d.kind === 'report')
    planned.report = { format: d.ext === 'json' ? 'json' : 'text', instances: facts.instances, filters: [...new Set(facts.filters)] };
  return { planned, facts };
}

const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const stemOf = (name: string) => (name.lastIndexOf('.') > 0 ? name.slice(0, name.lastIndexOf('.')) : name);

/** The service's own options for each kind of output, and what it writes besides fileName. */
function addKindOptions(
  d: OutputDraft,
  planned: PlannedOutput,
  facts: OutputFacts,
  av: ReadonlyMap<string, string>,
  update: boolean,
): void {
  const stem = stemOf(d.fileName);
  switch (d.kind) {
    case 'numbered': {
      if (update) refuse(`Output ${show(d.fileName)} is a numbered pattern and cannot use -update 1`);
      // The image muxer writes one file per packet of every stream it holds, and -frames bounds
      // each stream: the file bound holds for one stream only. So a numbered output takes at
      // most one -map, naming one stream, and drops audio, subtitles and data.
      const maps = facts.maps;
      const mapTokens = planned.args.filter((_, i) => planned.args[i - 1] === '-map');
      if (maps.length > 1 || (mapTokens.length === 1 && !SINGLE_STREAM_MAP.test(mapTokens[0]!))) {
        refuse(
          `Output ${show(d.fileName)} is a numbered pattern and writes one stream: give at most one -map, naming a single stream such as 0:v:0 or [label]`,
        );
      }
      planned.args.push('-an', '-sn', '-dn');
      planned.extraFiles = numberedRegex(d.pattern!);
      // The frame bound (-frames N) is added by planTask once it shares the task's file budget out.
      planned.maxFiles = facts.largestFrames ?? 0;
      return;
    }
    case 'hls': {
      if (d.ext !== 'm3u8') refuse(`Output ${show(d.fileName)} is an HLS playlist: its name must end with .m3u8`);
      if (av.has('var_stream_map')) refuse(`Option '-var_stream_map' is not available: make one HLS output per variant instead`);
      const fmp4 = av.get('hls_segment_type') === 'fmp4' || av.get('hls_segment_type') === '1';
      const segExt = fmp4 ? 'm4s' : 'ts';
      planned.args.push('-hls_segment_filename', `file:out/${stem}%d.${segExt}`);
      if (fmp4) planned.args.push('-hls_fmp4_init_filename', `${stem}_init.mp4`);
      const master = av.get('master_pl_name');
      const names = [
        `${escapeRegex(stem)}\\d+\\.${segExt}`,
        `${escapeRegex(stem)}_init\\.mp4`,
        `${escapeRegex(d.fileName)}\\.key`,
        ...(master ? [escapeRegex(master)] : []),
      ];
      planned.extraFiles = `^(?:${names.join('|')})$`;
      planned.maxFiles = 0;
      return;
    }
    case 'dash': {
      if (d.ext !== 'mpd') refuse(`Output ${show(d.fileName)} is a DASH manifest: its name must end with .mpd`);
      planned.args.push(
        '-init_seg_name',
        `${stem}-init-stream$RepresentationID$.$ext$`,
        '-media_seg_name',
        `${stem}-chunk-stream$RepresentationID$-$Number%05d$.$ext$`,
      );
      const master = av.get('hls_master_name');
      const names = [
        `${escapeRegex(stem)}-(?:init-stream\\d+|chunk-stream\\d+-\\d+|stream\\d+)\\.\\w+`,
        'media_\\d+\\.m3u8',
        escapeRegex(master ?? 'master.m3u8'),
      ];
      planned.extraFiles = `^(?:${names.join('|')})$`;
      planned.maxFiles = 0;
      return;
    }
    case 'segments':
      addSegmentOptions(d, planned, av);
      return;
    case 'report':
      planned.maxFiles = 1;
      return;
    case 'file':
      return;
  }
}

function numberedRegex(p: NumberedPattern): string {
  const digits = p.width > 1 ? `\\d{${p.width},}` : '\\d+';
  return `^${escapeRegex(p.prefix)}${digits}${escapeRegex(p.suffix)}$`;
}
