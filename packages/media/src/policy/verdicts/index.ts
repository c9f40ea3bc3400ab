// Every verdict table, and the two questions asked of them: may this entry be used, and how is
// this option of it judged.
import type { AvOption } from '../catalogue/types.js';
import { BSF_VERDICTS } from './bsfs.js';
import { DECODER_VERDICTS } from './decoders.js';
import { DEMUXER_VERDICTS } from './demuxers.js';
import { ENCODER_VERDICTS } from './encoders.js';
import { FILTER_VERDICTS } from './filters.js';
import { MUXER_VERDICTS } from './muxers.js';
import { SHARED_OPTION_VERDICTS } from './shared-options.js';
import type { EntryVerdict, OptionVerdict, Verdicts } from './types.js';

export type { SharedTable } from './types.js';

export type EntryKind = 'filter' | 'encoder' | 'decoder' | 'muxer' | 'demuxer' | 'bsf';

export const VERDICTS: Readonly<Record<EntryKind, Verdicts>> = {
  filter: FILTER_VERDICTS,
  encoder: ENCODER_VERDICTS,
  decoder: DECODER_VERDICTS,
  muxer: MUXER_VERDICTS,
  demuxer: DEMUXER_VERDICTS,
  bsf: BSF_VERDICTS,
};

export { SHARED_OPTION_VERDICTS };

/** The verdict for a catalogue entry; undefined when it has none (the build has something new). */
export function entryVerdict(kind: EntryKind, name: string): EntryVerdict | undefined {
  const table = VERDICTS[kind];
  return Object.hasOwn(table, name) ? table[name] : undefined;
}

const STRINGY = new Set(['string', 'dict', 'binary']);

/**
 * How an option is judged: its own verdict, else its alias target's, else its type's default
 * ('allow' for numbers, flags, sizes and the like). undefined: a string, dict or binary option
 * nobody judged, which the policy refuses.
 */
export function optionVerdict(judged: Readonly<Record<string, OptionVerdict>> | undefined, opt: AvOption): OptionVerdict | undefined {
  if (judged && Object.hasOwn(judged, opt.name)) return judged[opt.name];
  if (judged && opt.alias_of && Object.hasOwn(judged, opt.alias_of)) return judged[opt.alias_of];
  return STRINGY.has(opt.type) ? undefined : 'allow';
}

/** The option verdicts of an allowed entry (empty for a refused or unknown one). */
export function entryOptions(kind: EntryKind, name: string): Readonly<Record<string, OptionVerdict>> | undefined {
  const v = entryVerdict(kind, name);
  return v?.verdict === 'allow' ? v.options : undefined;
}

/** "it reads files the service did not stage; instead, add the file to task.inputs" for a refusal sentence. */
export function refusalText(v: EntryVerdict): string {
  if (v.verdict !== 'refuse') return '';
  return v.instead ? `${v.reason}; instead, ${v.instead}` : v.reason;
}
