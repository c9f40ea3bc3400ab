// The machine-readable policy (packages/media/policy/ffmpeg-policy.json), built from the very tables
// the checks use: every entry of the FFmpeg catalogue with its verdict, every option judged other
// than by its type, and ffmpeg's own options. A test fails when the committed JSON differs.
import { CATALOGUE } from './catalogue/catalogue.js';
import { LIMITS } from './limits.js';
import { CLI_OPTIONS, type CliRule, type CliValue } from './verdicts/cli-options.js';
import { SHARED_OPTION_VERDICTS, VERDICTS, type EntryKind } from './verdicts/index.js';
import type { EntryVerdict, OptionVerdict } from './verdicts/types.js';

export const POLICY_VERSION = 2;

/** One option verdict as text: 'text', 'input: font', 'refused: it writes a file', 'pinned to 0: ...'. */
export function describeOptionVerdict(v: OptionVerdict): string {
  if (typeof v === 'string') return v;
  if ('refuse' in v) return `refused: ${v.refuse}`;
  if ('pinned' in v) return `set by the service to ${v.pinned}: ${v.why}`;
  if ('input' in v) return `names a task input (${v.input} file)`;
  if ('params' in v) return `key=value list; refused keys: ${Object.keys(v.params).join(', ')}`;
  const range =
    v.min !== undefined && v.max !== undefined ? `${v.min} to ${v.max}` : v.max !== undefined ? `at most ${v.max}` : `at least ${v.min}`;
  return `${range} (${v.why})`;
}

function entry(v: EntryVerdict | undefined): unknown {
  if (v === undefined) return 'unjudged';
  if (v.verdict === 'refuse') return { verdict: 'refuse', reason: v.reason, ...(v.instead ? { instead: v.instead } : {}) };
  const options = Object.entries(v.options ?? {});
  if (options.length === 0 && !v.note) return 'allow';
  return {
    verdict: 'allow',
    ...(v.note ? { note: v.note } : {}),
    ...(options.length > 0 ? { options: Object.fromEntries(options.map(([k, o]) => [k, describeOptionVerdict(o)])) } : {}),
  };
}

const CATALOGUE_TABLES: Readonly<Record<EntryKind, Readonly<Record<string, unknown>>>> = {
  filter: CATALOGUE.filters,
  encoder: CATALOGUE.encoders,
  decoder: CATALOGUE.decoders,
  muxer: CATALOGUE.muxers,
  demuxer: CATALOGUE.demuxers,
  bsf: CATALOGUE.bsfs,
};

function verdictTable(kind: EntryKind): Record<string, unknown> {
  return Object.fromEntries(Object.keys(CATALOGUE_TABLES[kind]).map((name) => [name, entry(VERDICTS[kind][name])]));
}

function describeCliValue(v: CliValue): string {
  switch (v.kind) {
    case 'time':
      return `time (${v.min} to ${v.max} s)`;
    case 'number':
      return `${v.integer ? 'integer' : 'number'} (${v.min} to ${v.max})`;
    case 'enum':
      return `one of ${v.values.join(', ')}`;
    case 'pattern':
      return v.expected;
    case 'graph':
      return `${v.graph} filter graph`;
    case 'av':
      return `as the codec option ${v.option}`;
    default:
      return v.kind;
  }
}

function cliEntry(r: CliRule) {
  return {
    option: `-${r.name}`,
    where: r.where,
    value: describeCliValue(r.value),
    ...(r.specifier ? { specifier: r.specifier } : {}),
    ...(r.alias ? { means: `-${r.alias.of}${r.alias.spec ? `:${r.alias.spec}` : ''}` } : {}),
    ...(r.bool ? { negation: `-no${r.name}` } : {}),
    ...(r.repeatable ? { repeatable: true } : {}),
    status: r.refuse ? 'refused' : r.ignored ? 'ignored' : 'allowed',
    ...(r.refuse ? { reason: r.refuse.reason, ...(r.refuse.instead ? { instead: r.refuse.instead } : {}) } : {}),
    ...(r.ignored ? { reason: r.ignored } : {}),
    what: r.what,
  };
}

export function policyDocument() {
  return {
    $comment:
      'FFmpeg policy of the media service: every filter, encoder, decoder, muxer, demuxer and bitstream filter of the FFmpeg build in use, ' +
      'with its verdict, and the options judged other than by their type. Generated from packages/media/src/policy; ' +
      'packages/media/test/policy-document.test.ts fails when it drifts (regenerate with UPDATE_POLICY_JSON=1). ' +
      'Human-readable version: docs/ffmpeg-policy.md.',
    version: POLICY_VERSION,
    ffmpeg: CATALOGUE.ffmpeg,
    limits: LIMITS,
    commandLineOptions: CLI_OPTIONS.map(cliEntry),
    sharedOptions: Object.fromEntries(
      Object.entries(SHARED_OPTION_VERDICTS).map(([table, opts]) => [
        table,
        Object.fromEntries(Object.entries(opts).map(([k, v]) => [k, describeOptionVerdict(v)])),
      ]),
    ),
    filters: verdictTable('filter'),
    encoders: verdictTable('encoder'),
    decoders: verdictTable('decoder'),
    muxers: verdictTable('muxer'),
    demuxers: verdictTable('demuxer'),
    bitstreamFilters: verdictTable('bsf'),
  };
}

export type PolicyDocument = ReturnType<typeof policyDocument>;
