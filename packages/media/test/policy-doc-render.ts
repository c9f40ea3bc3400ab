// Renders the reference part of docs/ffmpeg-policy.md from policyDocument(), so the tables in the
// human-readable policy are the code's tables. policy-document.test.ts compares (and with
// UPDATE_POLICY_JSON=1 rewrites) the part between the markers.
import type { PolicyDocument } from '../src/policy/index.js';

export const BEGIN = '<!-- BEGIN GENERATED: policy reference (packages/media/test/policy-doc-render.ts) -->';
export const END = '<!-- END GENERATED -->';

type Doc = PolicyDocument;
type ValueRule = Doc['options'][number]['value'];
type FilterKind = Doc['filters'][string]['options'][string];

const n = (v: number) => v.toLocaleString('en-US');
const code = (s: string) => `\`${s.replace(/\|/g, '\\|')}\``;
const codes = (xs: readonly string[]) => xs.map(code).join(', ');
const cell = (s: string) => s.replace(/\|/g, '\\|');

function describeValue(v: ValueRule): string {
  if (v === null) return 'none (flag)';
  switch (v.type) {
    case 'int': return `integer ${n(v.min)} to ${n(v.max)}`;
    case 'number': return `number ${n(v.min)} to ${n(v.max)}`;
    case 'duration': return `duration (${code('00:01:30.5')}, ${code('90')}, ${code('500ms')}), ${v.min > 0 ? 'more than 0' : 'from 0'}, at most ${n(v.max)} s`;
    case 'size': return `${code('WxH')} or a size name, at most ${n(v.max)}x${n(v.max)}`;
    case 'rate': return `frame rate (${code('30')}, ${code('30000/1001')}, ${code('ntsc')}), above 0, at most ${n(v.max)}`;
    case 'bitrate': return `bitrate (${code('128k')}, ${code('2.5M')}), at most ${n(v.max)} bit/s`;
    case 'bytes': return `bytes (${code('10M')}), at most ${n(v.max)}`;
    case 'enum': return `one of ${codes(v.values)}`;
    case 'enum_or_int': return `one of ${codes(v.values)}, or an integer ${n(v.min)} to ${n(v.max)}`;
    case 'flags': return `flags joined by ${code('+')}/${code('-')}: ${codes(v.values)}`;
    case 'list': return `comma-separated: ${codes(v.values)}`;
    case 'pattern': return v.expected;
    case 'codec': return 'an encoder from [Encoders](#encoders), or `copy`';
    case 'muxer': return 'a muxer from [Muxers](#muxers)';
    case 'map': return `${code('[-]<input>[:<stream>][?]')} with an existing input, or ${code('[label]')} of a ${code('-filter_complex')} output`;
    case 'map_metadata': return `${code('-1')} or ${code('<input>[:g|:s[:stream]|:c:N|:p:N]')}`;
    case 'map_chapters': return `${code('-1')} or an input index`;
    case 'metadata': return `${code('key=value')}: key of letters, digits, ${code('_.-')}; value printable text, no control characters`;
    case 'filtergraph': return `a ${v.graph} filter graph, see [Filters](#filters)`;
  }
}

function describeKind(k: FilterKind): string {
  if (k === 'text') return '';
  switch (k.kind) {
    case 'dimension': return ' (size: number up to 8,192 or bounded expression)';
    case 'size': return ` (${code('WxH')} up to ${n(k.max)})`;
    case 'grid': return ` (${code('WxH')} up to ${k.max}x${k.max})`;
    case 'rate': return ' (rate up to 240)';
    case 'int': return ` (${n(k.min)} to ${n(k.max)})`;
  }
}

export function renderReference(doc: Doc): string {
  const out: string[] = [BEGIN, ''];
  out.push('### Limits', '', '| Limit | Value |', '|---|---|');
  for (const [k, v] of Object.entries(doc.limits)) out.push(`| ${code(k)} | ${n(v)} |`);

  out.push('', '### Options', '', 'Specifier: `stream` = may be written `-name:<stream specifier>` (`-c:v`, `-b:a:0`); `metadata` = `-name:g|s[:spec]|c:N|p:N`; `none` = no specifier.', '');
  out.push('| Option | Also written | Specifier | Repeatable | Value | What |', '|---|---|---|---|---|---|');
  for (const o of doc.options) {
    const aliases = Object.entries(o.aliases ?? {}).map(([a, target]) => `${code(a)} = ${code(target)}`).join(', ');
    out.push(`| ${code(o.option)} | ${aliases} | ${o.specifier} | ${o.repeatable ? 'yes' : ''} | ${cell(describeValue(o.value))} | ${cell(o.what)} |`);
  }

  out.push('', '### Refused options (with the reason the error gives)', '', 'Any option not listed under Options is refused; these are the ones people try.', '');
  out.push('| Option | Reason |', '|---|---|');
  for (const [o, why] of Object.entries(doc.refusedOptions)) out.push(`| ${code(o)} | ${cell(why)} |`);
  for (const [o, why] of Object.entries(doc.otherRefusals)) out.push(`| ${cell(o)} | ${cell(why)} |`);

  out.push('', '### Filters', '', 'Every filter also accepts `enable` (timeline expression). "Bare values" lists the options that values without a name fill, in order (`scale=320:-2` is `w=320:h=-2`); further bare values are refused.', '');
  out.push('| Filter | Media | Bare values | Options | Purpose |', '|---|---|---|---|---|');
  for (const [name, f] of Object.entries(doc.filters)) {
    const opts = Object.entries(f.options).map(([k, kind]) => `${code(k)}${describeKind(kind)}`).join(', ');
    out.push(`| ${code(name)} | ${f.media} | ${f.positional.join(':')} | ${opts || '(none)'} | ${cell(f.purpose)} |`);
  }

  out.push('', '### Refused filters (with the reason the error gives)', '', 'Any filter not listed under Filters is refused; these are the ones people try.', '');
  out.push('| Filter | Reason |', '|---|---|');
  for (const [f, why] of Object.entries(doc.refusedFilters)) out.push(`| ${code(f)} | ${cell(why)} |`);
  out.push('', `Options refused on allowed filters with a reason: ${Object.entries(doc.refusedFilterOptions).map(([k, why]) => `${code(k)} (${why})`).join(', ')}. Keys starting with ${code('/')} (ffmpeg 7 reads the value from that file) are refused.`);

  out.push('', '### Muxers', '', `Allowed with ${code('-f')}: ${codes(doc.muxers.allowedWithF)}.`, '', 'Without `-f`, the extension decides; only these extensions are accepted:', '');
  out.push('| Extension | Muxer |', '|---|---|');
  for (const [ext, m] of Object.entries(doc.muxers.byExtension)) out.push(`| ${code(`.${ext}`)} | ${code(m)} |`);
  out.push('', '| Refused muxer | Reason |', '|---|---|');
  for (const [m, why] of Object.entries(doc.muxers.refused)) out.push(`| ${code(m)} | ${cell(why)} |`);

  out.push('', '### Encoders', '');
  for (const media of ['video', 'audio', 'subtitle', 'any'] as const) {
    const names = Object.entries(doc.encoders).filter(([, m]) => m === media).map(([e]) => e);
    out.push(`- ${media === 'any' ? 'any stream' : media}: ${codes(names)}`);
  }

  out.push('', '### Protocols refused in any value', '', `${codes(doc.protocols)}, and anything containing ${code('://')}.`, '', END);
  return out.join('\n');
}
