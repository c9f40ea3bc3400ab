// The value of one of ffmpeg's own options (verdicts/cli-options.ts), checked by its kind. Returns
// the value to pass (filter graphs in canonical form) and what the planner needs to know of it.
import { CATALOGUE } from '../catalogue/catalogue.js';
import { codecFor, demuxerName, muxerName } from '../catalogue/lookup.js';
import type { AvOption, MediaKind } from '../catalogue/types.js';
import { checkFilterGraph, type CheckedGraph, type GraphContext } from '../filter-policy.js';
import { LIMITS } from '../limits.js';
import { pathOrUrlProblem } from '../path-like.js';
import { hasControlChar, refuse, show } from '../refuse.js';
import { METADATA_SPECIFIER, specifierMedia, streamRefProblem } from '../stream-spec.js';
import { checkAvValue } from '../values/av-value.js';
import { parseCliNumber, parseCliTime, parseVideoRate, parseVideoSize } from '../values/cli-values.js';
import { entryVerdict, refusalText } from '../verdicts/index.js';
import type { SideKind } from '../verdicts/types.js';
import { unboundedExpressionFunction } from '../filtergraph/expression.js';
import { checkOptionValue } from './check-value.js';
import type { RawOption } from './read-options.js';

export interface CliValueContext {
  side: 'input' | 'output';
  /** For messages: "task.outputs[0].options". */
  where: string;
  inputCount: number;
  sideFile?: (use: SideKind | 'attachment', value: string, what: string) => string;
  instanceName?: (filter: string, position: number) => string;
}

export interface CliChecked {
  value: string;
  graph?: CheckedGraph;
  /** -map [label]. */
  mapLabel?: string;
  /** -map N[:spec]: the input index (not for negative maps). */
  mapInput?: { index: number; spec: string | null };
  /** -c: the encoder or decoder chosen ('copy' for stream copy). */
  codec?: { name: string; type: MediaKind } | 'copy';
  /** -f: the muxer, or the demuxer's full name. */
  format?: string;
  /** Numeric value of times (seconds) and numbers. */
  number?: number;
}

const CH_LAYOUT: AvOption = { name: 'ch_layout', type: 'chlayout', flags: '', min: 0, max: 0, default: null };

function codecValue(v: string, o: RawOption, ctx: CliValueContext): CliChecked {
  if (v === 'copy') {
    if (ctx.side === 'input') refuse(`Value 'copy' of ${show(o.token)} is for outputs; an input's -c names a decoder`);
    return { value: v, codec: 'copy' };
  }
  const kind = ctx.side === 'output' ? 'encoder' : 'decoder';
  const found = codecFor(kind, v);
  if (!found) {
    const other = codecFor(kind === 'encoder' ? 'decoder' : 'encoder', v);
    const hint = other
      ? `; it is ${kind === 'encoder' ? 'a decoder' : 'an encoder'}${ctx.side === 'input' ? " (an input's -c chooses how it is decoded)" : ''}`
      : '';
    refuse(`Value ${show(v)} of ${show(o.token)} is not ${kind === 'encoder' ? 'an encoder' : 'a decoder'} of this FFmpeg build${hint}`);
  }
  const verdict = entryVerdict(kind, found.name);
  if (!verdict || verdict.verdict === 'refuse') {
    refuse(
      `${kind === 'encoder' ? 'Encoder' : 'Decoder'} ${show(found.name)} is not allowed: ${verdict ? refusalText(verdict) : 'it has not been judged for this FFmpeg build yet'}`,
    );
  }
  const media = o.spec === null ? undefined : specifierMedia(o.spec);
  if (media && found.codec.type !== media)
    refuse(`Value ${show(v)} of ${show(o.token)} is a ${found.codec.type} ${kind}, not a ${media} one`);
  return { value: v, codec: { name: found.name, type: found.codec.type } };
}

function formatValue(v: string, o: RawOption, ctx: CliValueContext): CliChecked {
  if (ctx.side === 'output') {
    const full = muxerName(v);
    if (!full) refuse(`Value ${show(v)} of ${show(o.token)} is not a muxer (output format) of this FFmpeg build`);
    const verdict = entryVerdict('muxer', full);
    if (!verdict || verdict.verdict === 'refuse')
      refuse(`Muxer ${show(v)} is not allowed: ${verdict ? refusalText(verdict) : 'it has not been judged for this FFmpeg build yet'}`);
    return { value: v, format: full };
  }
  const full = demuxerName(v);
  if (!full) refuse(`Value ${show(v)} of ${show(o.token)} is not a demuxer (input format) of this FFmpeg build`);
  const verdict = entryVerdict('demuxer', full);
  if (!verdict || verdict.verdict === 'refuse')
    refuse(`Demuxer ${show(v)} is not allowed: ${verdict ? refusalText(verdict) : 'it has not been judged for this FFmpeg build yet'}`);
  return { value: v, format: full };
}

function mapValue(v: string, o: RawOption, ctx: CliValueContext): CliChecked {
  const label = /^\[([A-Za-z0-9_.:-]{1,64})\]$/.exec(v);
  if (label) return { value: v, mapLabel: label[1]! };
  const m = /^(-?)(\d{1,3})(?::(.+?))?(\??)$/.exec(v);
  const problem = m
    ? streamRefProblem(m[3] === undefined ? m[2]! : `${m[2]}:${m[3]}`, ctx.inputCount)
    : 'is not <input>[:<stream>] or [label]';
  if (problem) refuse(`Value ${show(v)} of ${show(o.token)} ${problem}; use <input>[:<stream>] such as 0:v:0, -0:s, 1:a? or [label]`);
  return { value: v, ...(m![1] === '-' ? {} : { mapInput: { index: Number(m![2]), spec: m![3] ?? null } }) };
}

function mapMetadataProblem(v: string, inputCount: number): string | null {
  if (v === '-1') return null;
  const m = /^(\d{1,3})(?::(.+))?$/.exec(v);
  if (!m || (m[2] !== undefined && !METADATA_SPECIFIER.test(m[2]))) return 'must be -1 or <input>[:g|:s[:stream]|:c:N|:p:N]';
  if (Number(m[1]) >= inputCount) return `refers to input ${m[1]}, but the task has ${inputCount}`;
  return null;
}

function metadataValue(v: string, o: RawOption): CliChecked {
  const eq = v.indexOf('=');
  const key = eq < 0 ? v : v.slice(0, eq);
  if (!/^[A-Za-z0-9_.-]{1,64}$/.test(key))
    refuse(`Value ${show(v)} of ${show(o.token)} must be key=value with a key of letters, digits, '_', '.' or '-'`);
  // A value of text only: ffmpeg writes it into the container and never opens it, so titles such
  // as 'Data: results' or 'see https://example.com' are fine. key alone (no '=') deletes the tag.
  if (hasControlChar(v.slice(eq + 1), true)) refuse(`Value of ${show(o.token)} ${key} contains a control character`);
  return { value: v };
}

/** -bsf: name[=key=value:key=value][,name...] (av_bsf_list_parse_str). */
function bsfValue(v: string, o: RawOption): CliChecked {
  for (const item of v.split(',')) {
    const eq = item.indexOf('=');
    const name = eq < 0 ? item : item.slice(0, eq);
    if (!Object.hasOwn(CATALOGUE.bsfs, name)) refuse(`${show(name)} in ${show(o.token)} is not a bitstream filter of this FFmpeg build`);
    const verdict = entryVerdict('bsf', name);
    if (!verdict || verdict.verdict === 'refuse')
      refuse(
        `Bitstream filter ${show(name)} is not allowed: ${verdict ? refusalText(verdict) : 'it has not been judged for this FFmpeg build yet'}`,
      );
    if (eq < 0) continue;
    for (const pair of item.slice(eq + 1).split(':')) {
      const peq = pair.indexOf('=');
      const key = peq < 0 ? pair : pair.slice(0, peq);
      const opt = CATALOGUE.bsfs[name]!.options.find((x) => x.name === key);
      if (!opt || peq < 0) refuse(`Bitstream filter '${name}' has no option ${show(key)} (give options as name=key=value:key=value)`);
      const judged =
        verdict.options && Object.hasOwn(verdict.options, key)
          ? verdict.options[key]!
          : opt.type === 'string' || opt.type === 'dict' || opt.type === 'binary'
            ? undefined
            : 'allow';
      if (judged === undefined)
        refuse(`Option '${key}' of bitstream filter '${name}' is not allowed: it has not been judged for this FFmpeg build yet`);
      checkOptionValue(opt, judged, pair.slice(peq + 1), { what: `Option '${key}' of bitstream filter '${name}'` });
    }
  }
  return { value: v };
}

function graphValue(v: string, o: RawOption, ctx: CliValueContext, graph: 'simple' | 'complex'): CliChecked {
  const media = o.spec === null ? undefined : specifierMedia(o.spec);
  const gctx: GraphContext = {
    option: o.token,
    kind: graph,
    ...(media === 'video' || media === 'audio' ? { media } : {}),
    inputCount: ctx.inputCount,
    ...(ctx.sideFile ? { sideFile: ctx.sideFile } : {}),
    ...(ctx.instanceName ? { instanceName: ctx.instanceName } : {}),
  };
  const checked = checkFilterGraph(v, gctx);
  return { value: checked.canonical, graph: checked };
}

/** Checks the value of a CLI option; refuses with a sentence naming it. */
export function checkCliValue(o: RawOption, ctx: CliValueContext): CliChecked {
  const rule = o.cli!.rule;
  const v = o.value ?? '';
  const bad = (problem: string): never => {
    const path = pathOrUrlProblem(v);
    if (path) refuse(`Value of ${show(o.token)} must not name a file or URL: ${show(v)} looks like ${path}`);
    refuse(`Value ${show(v)} of ${show(o.token)} ${problem}`);
  };
  const value = rule.value;
  switch (value.kind) {
    case 'none':
      return { value: '' };
    case 'time': {
      const s = parseCliTime(v);
      if (s === undefined) bad('must be a time such as 00:01:30.5, 90 or 500ms');
      if (s! < value.min || s! > value.max) bad(`must be from ${value.min} to ${value.max} seconds`);
      return { value: v, number: s! };
    }
    case 'number': {
      const n = parseCliNumber(v);
      if (n === undefined || (value.integer && !Number.isInteger(n)))
        bad(`must be ${value.integer ? 'an integer' : 'a number'} from ${value.min} to ${value.max}`);
      if (n! < value.min || n! > value.max) bad(`must be from ${value.min} to ${value.max}`);
      return { value: v, number: n! };
    }
    case 'rate': {
      const r = parseVideoRate(v);
      if (r === undefined) bad('must be a frame rate such as 30, 29.97, 30000/1001 or ntsc');
      if (!(r! > 0 && r! <= LIMITS.maxFrameRate)) bad(`must be more than 0 and at most ${LIMITS.maxFrameRate} frames per second`);
      return { value: v, number: r! };
    }
    case 'size': {
      const s = parseVideoSize(v);
      if (!s) bad('must be a size such as 1280x720 or a name such as hd720');
      if (s![0] > LIMITS.maxDimension || s![1] > LIMITS.maxDimension) bad(`must be at most ${LIMITS.maxDimension}x${LIMITS.maxDimension}`);
      return { value: `${s![0]}x${s![1]}` };
    }
    case 'aspect':
      if (!/^(?:\d{1,5}[:/]\d{1,5}|\d{1,3}(?:\.\d{1,9})?)$/.test(v)) bad('must be an aspect ratio such as 16:9 or 1.7778');
      return { value: v };
    case 'codec':
      return codecValue(v, o, ctx);
    case 'format':
      return formatValue(v, o, ctx);
    case 'map':
      return mapValue(v, o, ctx);
    case 'map_metadata': {
      const p = mapMetadataProblem(v, ctx.inputCount);
      if (p) bad(p);
      return { value: v };
    }
    case 'map_chapters':
      if (!(v === '-1' || (/^\d{1,3}$/.test(v) && Number(v) < ctx.inputCount)))
        bad(`must be -1 or the index of a task input (0 to ${ctx.inputCount - 1})`);
      return { value: v };
    case 'metadata':
      return metadataValue(v, o);
    case 'graph':
      return graphValue(v, o, ctx, value.graph);
    case 'bsf':
      return bsfValue(v, o);
    case 'pix_fmt': {
      const name = v.startsWith('+') ? v.slice(1) : v;
      if (name !== '' && !CATALOGUE.pix_fmts.includes(name)) bad('must be a pixel format such as yuv420p (ffmpeg -pix_fmts lists them)');
      return { value: v };
    }
    case 'sample_fmt':
      if (!CATALOGUE.sample_fmts.includes(v)) bad(`must be one of ${CATALOGUE.sample_fmts.join(', ')}`);
      return { value: v };
    case 'ch_layout': {
      const checked = checkAvValue(CH_LAYOUT, v);
      if ('problem' in checked) bad(checked.problem);
      return { value: v };
    }
    case 'enum':
      if (!value.values.includes(v)) bad(`must be one of ${value.values.join(', ')}`);
      return { value: v };
    case 'pattern':
      if (!value.regex.test(v)) bad(`must be ${value.expected}`);
      return { value: v };
    case 'token': {
      const path = pathOrUrlProblem(v);
      if (path) bad(`must not name a file or URL (it looks like ${path})`);
      return { value: v };
    }
    case 'av': {
      const opt = CATALOGUE.shared.AVCodecContext.find((x) => x.name === value.option)!;
      const checked = checkAvValue(opt, v);
      if ('problem' in checked) bad(checked.problem);
      return { value: (checked as { canonical: string }).canonical };
    }
    case 'keyframes': {
      if (v.startsWith('expr:')) {
        const fn = unboundedExpressionFunction(v);
        if (fn) bad(`uses ${fn}(), which can run without end`);
        return { value: v };
      }
      if (v !== 'source' && !v.split(',').every((t) => /^chapters([+-]\d+(\.\d+)?)?$/.test(t) || parseCliTime(t) !== undefined)) {
        bad('must be source, expr:<expression>, or times separated by commas (00:00:05,10,15.5)');
      }
      return { value: v };
    }
    case 'side_file':
      if (!ctx.sideFile) refuse(`${show(o.token)} names a file; only an output's options may attach one`);
      return { value: ctx.sideFile('attachment', v, `Option ${show(o.token)}`) };
  }
}
