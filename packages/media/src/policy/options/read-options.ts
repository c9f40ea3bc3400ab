// Reads an options array the way ffmpeg reads its command line: -name[:specifier] followed by a
// value unless the option takes none. A name is first one of ffmpeg's own options
// (verdicts/cli-options.ts); any other name is an AVOption of a codec, format, scaler or
// resampler in effect for that input or output (resolveAvOption), as ffmpeg's opt_default looks
// it up. An option that no codec or format in effect has would do nothing: it is refused with
// where it belongs instead.
import { CATALOGUE } from '../catalogue/catalogue.js';
import type { AvOption } from '../catalogue/types.js';
import type { StreamType } from '../catalogue/lookup.js';
import { LIMITS } from '../limits.js';
import { pathOrUrlProblem } from '../path-like.js';
import { charCount, hasControlChar, refuse, show } from '../refuse.js';
import { METADATA_SPECIFIER, specifierMedia, STREAM_SPECIFIER } from '../stream-spec.js';
import { cliRule, type CliRule } from '../verdicts/cli-options.js';
import { entryOptions, entryVerdict, optionVerdict, SHARED_OPTION_VERDICTS, type EntryKind, type SharedTable } from '../verdicts/index.js';
import type { OptionVerdict } from '../verdicts/types.js';

export interface RawOption {
  /** As written: '-c:v', '-vcodec', '-noautorotate'. */
  token: string;
  /** Index of the token in the options array. */
  at: number;
  /** The option: a CLI rule's name (aliases resolved: -vcodec is 'c') or an AVOption name. */
  name: string;
  /** The stream specifier in effect ('v' for -vcodec and -c:v), or null. */
  spec: string | null;
  cli?: { rule: CliRule; negated: boolean };
  value?: string;
}

const GRAPH_KINDS = new Set(['graph']);

function readName(tok: string, where: string): { name: string; spec: string | null } {
  if (!tok.startsWith('-') || tok === '-') {
    const path = pathOrUrlProblem(tok);
    refuse(
      `Unexpected ${show(tok)} in ${where} where an option was expected${path ? ` (it looks like ${path})` : ''}: every option starts with '-' and its value follows it as the next entry`,
    );
  }
  if (tok.startsWith('-/')) refuse(`Option ${show(tok)} in ${where} is not allowed: '-/' makes ffmpeg read the option's value from a file`);
  const body = tok.slice(1);
  const colon = body.indexOf(':');
  return colon < 0 ? { name: body, spec: null } : { name: body.slice(0, colon), spec: body.slice(colon + 1) };
}

/** Splits an options array into options with their values; checks names, specifiers and sizes. */
export function tokenizeOptions(tokens: readonly string[], where: string): RawOption[] {
  if (tokens.length > LIMITS.maxOptions) refuse(`${where} has ${tokens.length} entries; at most ${LIMITS.maxOptions} are allowed`);
  const out: RawOption[] = [];
  const seen = new Set<string>();
  for (let i = 0; i < tokens.length; i++) {
    const tok = tokens[i]!;
    if (charCount(tok) > LIMITS.maxOptionChars)
      refuse(`${where}[${i}] is ${charCount(tok)} characters long; an option may have at most ${LIMITS.maxOptionChars}`);
    if (hasControlChar(tok)) refuse(`Option ${show(tok)} in ${where} contains a control character`);
    const { name, spec } = readName(tok, where);
    const found = cliRule(name);
    let effective = { name, spec };
    if (found) {
      const { rule } = found;
      if (spec !== null) {
        if (rule.alias?.spec)
          refuse(`Option '-${name}' takes no specifier; write -${rule.alias.of}:${rule.alias.spec}:... instead of ${show(tok)}`);
        if (!rule.specifier) refuse(`Option '-${name}' takes no stream specifier (${show(tok)})`);
        const pattern = rule.specifier === 'metadata' ? METADATA_SPECIFIER : STREAM_SPECIFIER;
        if (!pattern.test(spec)) refuse(`Specifier ${show(spec)} of ${show(tok)} is not supported; use forms such as v, a:0, 1 or s:a:0`);
      }
      effective = { name: rule.alias?.of ?? rule.name, spec: rule.alias?.spec ?? spec };
    } else if (spec !== null && !STREAM_SPECIFIER.test(spec)) {
      refuse(`Specifier ${show(spec)} of ${show(tok)} is not supported; use forms such as v, a:0, 1 or s:a:0`);
    }
    const takesValue = found ? found.rule.value.kind !== 'none' && !found.negated : true;
    const key = `${effective.name}:${effective.spec ?? ''}`;
    const repeatable = found?.rule.repeatable ?? false;
    if (!repeatable && seen.has(key)) refuse(`Option ${show(tok)} is given more than once in ${where}`);
    seen.add(key);
    const option: RawOption = { token: tok, at: i, name: effective.name, spec: effective.spec, ...(found ? { cli: found } : {}) };
    if (takesValue) {
      if (i + 1 >= tokens.length) refuse(`Option ${show(tok)} in ${where} needs a value (the next entry)`);
      const value = tokens[++i]!;
      const isGraph = found !== undefined && GRAPH_KINDS.has(found.rule.value.kind);
      const max = isGraph ? LIMITS.maxFilterGraphChars : LIMITS.maxOptionChars;
      if (charCount(value) > max) {
        refuse(
          isGraph
            ? `The filter graph in ${where}[${i}] is ${charCount(value)} characters long; at most ${max} are allowed`
            : `${where}[${i}] is ${charCount(value)} characters long; an option may have at most ${max}`,
        );
      }
      option.value = value;
    }
    out.push(option);
  }
  return out;
}

/** The codecs and formats in effect for one input or output, where its AVOptions are looked up. */
export interface AvScope {
  side: 'input' | 'output';
  /** Encoders (outputs) or decoders (inputs) in effect per stream type. */
  codecs: Readonly<Record<StreamType, readonly string[]>>;
  /** The muxer, or the demuxer; several when the demuxer is only known after the probe. */
  formats: readonly string[];
  /** For messages: "output 'out.mp4' (mp4 muxer; libx264 and aac encoders)". */
  describe: string;
}

export interface ResolvedAv {
  opt: AvOption;
  verdict: OptionVerdict | undefined;
  /** 'AVCodecContext', 'libx264', 'mp4'... */
  owner: string;
  /** A private option of the format (demuxer options are checked again once the probe names it). */
  formatPrivate: boolean;
}

const FLAG_OF_TYPE: Readonly<Record<string, string>> = { video: 'V', audio: 'A', subtitle: 'S' };

function sharedMatches(table: SharedTable, name: string, flag: string, type: StreamType | undefined): ResolvedAv[] {
  return CATALOGUE.shared[table]
    .filter(
      (o) =>
        o.name === name &&
        o.flags.includes(flag) &&
        (type === undefined || !/[VAS]/.test(o.flags) || o.flags.includes(FLAG_OF_TYPE[type] ?? '')),
    )
    .map((opt) => ({ opt, verdict: optionVerdict(SHARED_OPTION_VERDICTS[table], opt), owner: table, formatPrivate: false }));
}

function entryMatches(kind: EntryKind, names: readonly string[], option: string, formatPrivate: boolean): ResolvedAv[] {
  const table =
    kind === 'encoder'
      ? CATALOGUE.encoders
      : kind === 'decoder'
        ? CATALOGUE.decoders
        : kind === 'muxer'
          ? CATALOGUE.muxers
          : CATALOGUE.demuxers;
  const out: ResolvedAv[] = [];
  for (const n of names) {
    const opt = Object.hasOwn(table, n) ? table[n]!.options.find((o) => o.name === option) : undefined;
    if (opt) out.push({ opt, verdict: optionVerdict(entryOptions(kind, n), opt), owner: n, formatPrivate });
  }
  return out;
}

/**
 * Where ffmpeg would apply `-name[:spec] value` for this input or output: the generic codec and
 * format tables, the private options of the codecs and format in effect, and (outputs) the
 * scaler and resampler. Empty: it would have no effect.
 */
export function resolveAvOption(o: RawOption, scope: AvScope): ResolvedAv[] {
  const flag = scope.side === 'output' ? 'E' : 'D';
  const media = o.spec === null ? undefined : specifierMedia(o.spec);
  const type: StreamType | undefined = media;
  const types: StreamType[] = type ? [type] : ['video', 'audio', 'subtitle', 'data'];
  const codecKind: EntryKind = scope.side === 'output' ? 'encoder' : 'decoder';
  const found = [
    ...sharedMatches('AVCodecContext', o.name, flag, type),
    ...entryMatches(codecKind, [...new Set(types.flatMap((t) => scope.codecs[t]))], o.name, false),
  ];
  // ffmpeg looks format options up with the specifier still on the name: -movflags:v is unknown.
  if (o.spec === null) {
    found.push(...sharedMatches('AVFormatContext', o.name, flag, undefined));
    found.push(...entryMatches(scope.side === 'output' ? 'muxer' : 'demuxer', scope.formats, o.name, true));
    if (scope.side === 'output') {
      found.push(...sharedMatches('SWScaler', o.name, 'V', undefined), ...sharedMatches('SWResampler', o.name, 'A', undefined));
    }
  }
  return found;
}

const ENTRY_KIND = { encoders: 'encoder', decoders: 'decoder', muxers: 'muxer', demuxers: 'demuxer' } as const;
const KIND_NAMES: Readonly<Record<string, string>> = ENTRY_KIND;

/**
 * Which codecs and formats of the build have an option of this name (for the refusal); with
 * `allowedOnly`, only those the service allows (naming a refused encoder would send users there).
 */
function ownersOf(name: string, allowedOnly: boolean): Record<string, string[]> {
  const owners: Record<string, string[]> = {};
  for (const kind of ['muxers', 'demuxers', 'encoders', 'decoders'] as const) {
    const table: Readonly<Record<string, { options: readonly AvOption[] }>> = CATALOGUE[kind];
    const names = Object.entries(table)
      .filter(
        ([n, e]) => e.options.some((o) => o.name === name) && (!allowedOnly || entryVerdict(ENTRY_KIND[kind], n)?.verdict === 'allow'),
      )
      .map(([n]) => n.split(',')[0]!);
    if (names.length > 0) owners[kind] = names;
  }
  return owners;
}

const listNames = (names: string[], max = 4) =>
  names.length <= max ? names.join(', ') : `${names.slice(0, max).join(', ')} and ${names.length - max} more`;

/** Refuses an option that nothing in effect has, saying where it would belong. */
export function refuseNoEffect(o: RawOption, scope: AvScope, where: string): never {
  // Which side it belongs to is judged on every owner; only allowed owners are named.
  const everyOwner = ownersOf(o.name, false);
  const owners = ownersOf(o.name, true);
  const kinds = Object.keys(owners);
  if (
    Object.keys(everyOwner).length === 0 &&
    !CATALOGUE.shared.AVCodecContext.some((x) => x.name === o.name) &&
    !CATALOGUE.shared.AVFormatContext.some((x) => x.name === o.name)
  ) {
    refuse(`Option ${show(o.token)} in ${where} is not an ffmpeg option`);
  }
  const of = kinds.map((k) => `the ${listNames(owners[k]!)} ${KIND_NAMES[k]}${owners[k]!.length > 1 ? 's' : ''}`).join(' and ');
  const inputSide = 'demuxers' in everyOwner || 'decoders' in everyOwner;
  const outputSide = 'muxers' in everyOwner || 'encoders' in everyOwner;
  const ofText = of ? `: it is an option of ${of}` : '';
  if (scope.side === 'input' && outputSide && !inputSide) {
    // An encoder or muxer option among an input's: say what it is and where it goes.
    const what = !('muxers' in everyOwner) ? 'an encoder option' : !('encoders' in everyOwner) ? 'a muxer option' : 'an output option';
    const named = of ? ` (of ${of})` : '';
    refuse(
      `Option ${show(o.token)} has no effect on ${scope.describe}: it is ${what}${named}; give it among the output's options (task.outputs[i].options)`,
    );
  }
  let hint = '';
  // The segment muxer hands only -segment_format_options to the muxer that writes each part.
  if (scope.side === 'output' && scope.formats.includes('segment') && 'muxers' in everyOwner)
    hint = `; the parts' own muxer takes its options from -segment_format_options (e.g. -segment_format_options ${o.name}=<value>)`;
  else if (scope.side === 'output' && inputSide && !outputSide)
    hint = `; it is an input option: put it in the options of the input it applies to (task.inputs[i].options)`;
  else if (scope.side === 'output' && inputSide)
    hint = `; if it is meant for an input, put it in that input's options (task.inputs[i].options)`;
  refuse(`Option ${show(o.token)} has no effect on ${scope.describe}${ofText}${hint}`);
}
