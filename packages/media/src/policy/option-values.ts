// Checks one option value against its ValueRule. Returns the value to pass to ffmpeg (the same
// text, except filtergraphs, which come back in canonical form) or refuses with a 400.
import { checkFilterGraph, type CheckedGraph } from './filter-policy.js';
import { LIMITS } from './limits.js';
import { ENCODERS, type MediaType } from './media-names.js';
import { MUXERS, REFUSED_MUXERS } from './muxers.js';
import { pathOrUrlProblem } from './path-like.js';
import { charCount, hasControlChar, refuse, show } from './refuse.js';
import { METADATA_SPECIFIER, specifierMedia, streamRefProblem } from './stream-spec.js';
import {
  bitrateProblem, bytesProblem, durationProblem, enumProblem, flagsProblem, intProblem, listProblem, numberProblem,
  patternProblem, rateProblem, sizeProblem, type ValueRule,
} from './values.js';

export interface ValueContext {
  /** The option as written ('-c:v', '-vcodec'), for messages. */
  option: string;
  /** The effective specifier ('v' for -vcodec and -c:v), or null. */
  spec: string | null;
  inputCount: number;
}

export interface CheckedValue {
  value: string;
  /** Set for filtergraph options. */
  graph?: CheckedGraph;
  /** Set for -map [label]. */
  mapLabel?: string;
}

const MUXER_LIST = MUXERS as readonly string[];

function codecProblem(v: string, spec: string | null): string | null {
  if (!Object.hasOwn(ENCODERS, v)) return 'must be an encoder from the codec allow-list (for example libx264, libvpx-vp9, aac, libopus, copy)';
  const media: MediaType | undefined = spec === null ? undefined : specifierMedia(spec);
  const type = ENCODERS[v];
  if (media && type !== 'any' && type !== media) return `is a ${type} encoder, not a ${media} one`;
  return null;
}

function mapValue(v: string, ctx: ValueContext): CheckedValue {
  const label = /^\[([A-Za-z0-9_.:-]{1,64})\]$/.exec(v);
  if (label) return { value: v, mapLabel: label[1]! };
  const m = /^-?(.+?)\??$/.exec(v);
  const problem = m ? streamRefProblem(m[1]!, ctx.inputCount) : 'is empty';
  if (problem) refuse(`Value ${show(v)} of '${ctx.option}' ${problem}; use <input>[:<stream>] such as 0:v:0, -0:s, 1:a? or [label]`);
  return { value: v };
}

function mapMetadataProblem(v: string, inputCount: number): string | null {
  if (v === '-1') return null;
  const m = /^(\d{1,3})(?::(.+))?$/.exec(v);
  if (!m || (m[2] !== undefined && !METADATA_SPECIFIER.test(m[2]))) return 'must be -1 or <input>[:g|:s[:stream]|:c:N|:p:N]';
  if (Number(m[1]) >= inputCount) return `refers to input ${m[1]}, but the task has ${inputCount}`;
  return null;
}

function metadataValue(v: string, ctx: ValueContext): CheckedValue {
  const eq = v.indexOf('=');
  const key = eq < 0 ? v : v.slice(0, eq);
  if (eq < 0 || !/^[A-Za-z0-9_.-]{1,64}$/.test(key)) {
    refuse(`Value ${show(v)} of '${ctx.option}' must be key=value with a key of letters, digits, '_', '.' or '-'`);
  }
  const text = v.slice(eq + 1);
  if (charCount(text) > LIMITS.maxMetadataValueChars) refuse(`Value of '${ctx.option}' ${key} is longer than ${LIMITS.maxMetadataValueChars} characters`);
  if (hasControlChar(text)) refuse(`Value of '${ctx.option}' ${key} contains a control character`);
  // No path or protocol check on the text: ffmpeg only writes it into the container and never opens
  // it, so titles such as 'Data: results' or 'see https://example.com' are fine.
  return { value: v };
}

function muxerValue(v: string, ctx: ValueContext): CheckedValue {
  if (MUXER_LIST.includes(v)) return { value: v };
  const why = Object.hasOwn(REFUSED_MUXERS, v) ? `: ${REFUSED_MUXERS[v]}` : '';
  refuse(`Muxer ${show(v)} is not allowed for ${ctx.option}${why}`);
}

function graphValue(v: string, graph: 'simple' | 'complex', ctx: ValueContext): CheckedValue {
  const media = ctx.spec === null ? undefined : specifierMedia(ctx.spec);
  const checked = checkFilterGraph(v, {
    option: ctx.option,
    kind: graph,
    ...(media === 'video' || media === 'audio' ? { media } : {}),
    inputCount: ctx.inputCount,
  });
  return { value: checked.canonical, graph: checked };
}

/** Checks `value` for an option with rule `rule`; refuses with a sentence naming the option. */
export function checkOptionValue(rule: ValueRule, value: string, ctx: ValueContext): CheckedValue {
  const problem = (() => {
    switch (rule.type) {
      case 'int': return intProblem(value, rule.min, rule.max);
      case 'number': return numberProblem(value, rule.min, rule.max);
      case 'duration': return durationProblem(value, rule.min, rule.max);
      case 'size': return sizeProblem(value, rule.max);
      case 'rate': return rateProblem(value, rule.max);
      case 'bitrate': return bitrateProblem(value, rule.max);
      case 'bytes': return bytesProblem(value, rule.max);
      case 'enum': return enumProblem(value, rule.values);
      case 'enum_or_int':
        return rule.values.includes(value) || intProblem(value, rule.min, rule.max) === null
          ? null
          : `must be one of ${rule.values.slice(0, 12).join(', ')}${rule.values.length > 12 ? ', ...' : ''} or an integer from ${rule.min} to ${rule.max}`;
      case 'flags': return flagsProblem(value, rule.values);
      case 'list': return listProblem(value, rule.values);
      case 'pattern': return patternProblem(value, rule.regex, rule.expected);
      case 'codec': return codecProblem(value, ctx.spec);
      case 'map_metadata': return mapMetadataProblem(value, ctx.inputCount);
      case 'map_chapters':
        return value === '-1' || (/^\d{1,3}$/.test(value) && Number(value) < ctx.inputCount) ? null : `must be -1 or the index of a task input (0 to ${ctx.inputCount - 1})`;
      default: return undefined;
    }
  })();
  if (problem === undefined) {
    switch (rule.type) {
      case 'map': return mapValue(value, ctx);
      case 'metadata': return metadataValue(value, ctx);
      case 'muxer': return muxerValue(value, ctx);
      case 'filtergraph': return graphValue(value, rule.graph, ctx);
      default: throw new TypeError(`unhandled value rule ${(rule as { type: string }).type}`);
    }
  }
  if (problem) {
    // A value that names a file or URL gets that said plainly, whatever kind was expected.
    const path = pathOrUrlProblem(value);
    if (path) refuse(`Value of '${ctx.option}' must not name a file or URL: ${show(value)} looks like ${path}`);
    refuse(`Value ${show(value)} of '${ctx.option}' ${problem}`);
  }
  return { value };
}
