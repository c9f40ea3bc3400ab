// Renders the reference part of docs/ffmpeg-policy.md from policyDocument(), so the tables in the
// human-readable policy are the code's tables. policy-document.test.ts compares (and with
// UPDATE_POLICY_JSON=1 rewrites) the part between the markers. The document lists every refusal
// with its reason; the JSON also holds every allowed option's verdict.
import type { PolicyDocument } from '../src/policy/index.js';

export const BEGIN = '<!-- BEGIN GENERATED: policy reference (packages/media/test/policy-doc-render.ts) -->';
export const END = '<!-- END GENERATED -->';

type Doc = PolicyDocument;
type Entry = string | { verdict: 'allow' | 'refuse'; reason?: string; instead?: string; note?: string; options?: Record<string, string> };

const n = (v: number) => v.toLocaleString('en-US');
const code = (s: string) => `\`${s.replace(/\|/g, '\\|')}\``;
const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');

/** Option verdicts worth a line in the document: refusals, the service's own values, side files, bounds. */
const notable = (v: string) => /^(refused|set by the service|names a task input|key=value)|\(/.test(v);

function kindSection(title: string, label: string, table: Record<string, unknown>): string[] {
  const entries = Object.entries(table) as Array<[string, Entry]>;
  const allowed = entries.filter(([, e]) => e === 'allow' || (typeof e === 'object' && e.verdict === 'allow')).map(([k]) => k);
  const refused = entries.filter(([, e]) => typeof e === 'object' && e.verdict === 'refuse') as Array<
    [string, { reason: string; instead?: string }]
  >;
  const options = entries.flatMap(([name, e]) =>
    typeof e === 'object' && e.verdict === 'allow'
      ? Object.entries(e.options ?? {})
          .filter(([, v]) => notable(v))
          .map(([o, v]) => [name, o, v] as const)
      : [],
  );
  const out = [`### ${title}`, '', `${n(entries.length)} in this build: ${n(allowed.length)} allowed, ${n(refused.length)} refused.`, ''];
  out.push(`**Allowed:** ${allowed.map(code).join(', ')}.`, '');
  if (refused.length > 0) {
    out.push(`| Refused ${label} | Reason | Instead |`, '|---|---|---|');
    for (const [name, e] of refused) out.push(`| ${code(name)} | ${cell(e.reason)} | ${e.instead ? cell(e.instead) : ''} |`);
    out.push('');
  }
  if (options.length > 0) {
    out.push(
      `Options of allowed ${label}s that are refused, set by the service, bounded, or name a task input (every other option is checked by its type and range; string options by the verdicts in the JSON):`,
      '',
    );
    out.push(`| ${label.charAt(0).toUpperCase()}${label.slice(1)} | Option | Verdict |`, '|---|---|---|');
    for (const [name, o, v] of options) out.push(`| ${code(name)} | ${code(o)} | ${cell(v)} |`);
    out.push('');
  }
  return out;
}

export function renderReference(doc: Doc): string {
  const out: string[] = [BEGIN, '', `FFmpeg build: ${code(doc.ffmpeg)}.`, '', '### Limits', '', '| Limit | Value |', '|---|---|'];
  for (const [k, v] of Object.entries(doc.limits)) out.push(`| ${code(k)} | ${n(v as number)} |`);
  out.push(
    '',
    "### ffmpeg's own options",
    '',
    "Where: `input` = an input's options, `output` = an output's, `both`, or `global` (acts on the whole run, from either).",
    '',
  );
  out.push('| Option | Where | Value | Status | What |', '|---|---|---|---|---|');
  for (const o of doc.commandLineOptions) {
    const names = [o.option, ...('means' in o && o.means ? [`= ${o.means}`] : []), ...('negation' in o && o.negation ? [o.negation] : [])];
    const status =
      o.status === 'allowed' ? 'allowed' : `${o.status}: ${o.reason ?? ''}${'instead' in o && o.instead ? `; instead, ${o.instead}` : ''}`;
    out.push(`| ${names.map(code).join(' ')} | ${o.where} | ${cell(o.value)} | ${cell(status)} | ${cell(o.what)} |`);
  }
  out.push(
    '',
    '### Shared option tables',
    '',
    'Options every codec, format, scaler, resampler or filter has, judged other than by their type:',
    '',
    '| Table | Option | Verdict |',
    '|---|---|---|',
  );
  for (const [table, opts] of Object.entries(doc.sharedOptions)) {
    for (const [o, v] of Object.entries(opts as Record<string, string>))
      if (notable(v) || v === 'expr') out.push(`| ${table} | ${code(o)} | ${cell(v)} |`);
  }
  out.push('');
  out.push(...kindSection('Filters', 'filter', doc.filters));
  out.push(...kindSection('Encoders', 'encoder', doc.encoders));
  out.push(...kindSection('Decoders', 'decoder', doc.decoders));
  out.push(...kindSection('Muxers', 'muxer', doc.muxers));
  out.push(...kindSection('Demuxers', 'demuxer', doc.demuxers));
  out.push(...kindSection('Bitstream filters', 'bitstream filter', doc.bitstreamFilters));
  out.push(END);
  return out.join('\n');
}
