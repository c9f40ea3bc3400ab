// The machine-readable policy (packages/media/policy/ffmpeg-policy.json) built from the very tables
// the checks use; a test fails when the committed JSON differs from this.
import { FILTERS, GENERIC_FILTER_OPTIONS } from './filter-table.js';
import { REFUSED_FILTER_OPTIONS, REFUSED_FILTERS } from './filter-policy.js';
import { LIMITS } from './limits.js';
import { ENCODERS } from './media-names.js';
import { EXTENSION_MUXERS, IMAGE_SEQUENCE_EXTENSIONS, MUXERS, REFUSED_MUXERS } from './muxers.js';
import { OPTIONS, REFUSED_OPTIONS } from './option-table.js';
import { PROTOCOLS } from './path-like.js';

export const POLICY_VERSION = 1;

export function policyDocument() {
  return {
    $comment:
      'FFmpeg option and filter allow-list of the media service. Generated from packages/media/src/policy; ' +
      'packages/media/test/policy-document.test.ts fails when it drifts (regenerate with UPDATE_POLICY_JSON=1). ' +
      'Human-readable version: docs/ffmpeg-policy.md.',
    version: POLICY_VERSION,
    limits: LIMITS,
    options: OPTIONS.map((r) => ({
      option: `-${r.name}`,
      ...(r.aliases ? { aliases: Object.fromEntries(Object.entries(r.aliases).map(([a, s]) => [`-${a}`, s === null ? `-${r.name}` : `-${r.name}:${s}`])) } : {}),
      specifier: r.specifier,
      value: r.value,
      repeatable: r.repeatable ?? false,
      what: r.what,
    })),
    refusedOptions: Object.fromEntries(Object.entries(REFUSED_OPTIONS).map(([n, why]) => [`-${n}`, why])),
    otherRefusals: {
      '-/<option>': "ffmpeg 7 reads the option's value from a file",
      'bare values': 'a token that is not an option where one is expected would become another output',
      'paths, URLs and protocols': 'no value may name a file, URL or protocol (see protocols)',
    },
    filters: Object.fromEntries(Object.entries(FILTERS).map(([name, f]) => [name, {
      media: f.media,
      purpose: f.purpose,
      positional: f.positional,
      // 'text' (the common case) is written as a string to keep the file readable.
      options: Object.fromEntries(Object.entries(f.options).map(([k, v]) => [k, v.kind === 'text' ? ('text' as const) : v])),
    }])),
    genericFilterOptions: GENERIC_FILTER_OPTIONS,
    refusedFilters: REFUSED_FILTERS,
    refusedFilterOptions: REFUSED_FILTER_OPTIONS,
    muxers: {
      allowedWithF: MUXERS,
      byExtension: EXTENSION_MUXERS,
      imageSequenceExtensions: IMAGE_SEQUENCE_EXTENSIONS,
      refused: REFUSED_MUXERS,
    },
    encoders: ENCODERS,
    protocols: PROTOCOLS,
    numberedOutputs: {
      directives: ['%d', '%0Nd', '%Nd', '%%'],
      maxPadding: 9,
      extensions: IMAGE_SEQUENCE_EXTENSIONS,
      requires: `-frames:v (or -vframes, -frames) of at most ${LIMITS.maxFilesPerTask}`,
      maxFilesPerTask: LIMITS.maxFilesPerTask,
    },
  };
}

export type PolicyDocument = ReturnType<typeof policyDocument>;
