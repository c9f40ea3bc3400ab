// The filtergraph description syntax of libavfilter (graphparser.c), read the way ffmpeg reads it:
//   graph   := chain (';' chain)*        chain := filter (',' filter)*
//   filter  := ('[' label ']')* name['@'id] ['=' args] ('[' label ']')*
// Names, labels and args go through av_get_token, so quotes and backslashes are honoured: 'movie',
// mov\ie and "m'o'vie" all spell movie. The result is checked by filter-policy.ts and written back
// out canonically (serialize.ts), so ffmpeg runs exactly what was checked.
import { getToken, skipSpace } from './token.js';

export interface GraphFilter {
  /** Labels in front of the filter ([0:v], [a]). */
  inputs: string[];
  /** Filter name as ffmpeg will look it up (before any '@'). */
  name: string;
  /** Instance id after '@' (scale@small), if any. */
  instance?: string;
  /** Argument string after '=', unescaped at graph level; undefined without '='. */
  args?: string;
  /** Labels after the filter. */
  outputs: string[];
  /** What follows: ',' (next filter of the chain), ';' (next chain) or '' (end of graph). */
  separator: ',' | ';' | '';
}

export interface ParsedGraph {
  filters: GraphFilter[];
}

/** The description does not parse; the message says where (as ffmpeg would refuse it too). */
export class FilterGraphSyntaxError extends Error {
  override readonly name = 'FilterGraphSyntaxError';
}

const near = (s: string, p: number) => JSON.stringify(s.slice(p, p + 24));

function parseLabels(s: string, pos: number, out: string[]): number {
  let p = pos;
  while (s[p] === '[') {
    const start = p;
    const tok = getToken(s, p + 1, ']');
    if (tok.value === '') throw new FilterGraphSyntaxError(`empty label near ${near(s, start)}`);
    if (s[tok.next] !== ']') throw new FilterGraphSyntaxError(`unclosed '[' near ${near(s, start)}`);
    out.push(tok.value);
    p = skipSpace(s, tok.next + 1);
  }
  return p;
}

export function parseFilterGraph(text: string): ParsedGraph {
  const filters: GraphFilter[] = [];
  let p = 0;
  for (;;) {
    p = skipSpace(text, p);
    const inputs: string[] = [];
    p = parseLabels(text, p, inputs);
    const nameTok = getToken(text, p, '=,;[');
    p = nameTok.next;
    if (nameTok.value === '') throw new FilterGraphSyntaxError(`missing filter name near ${near(text, p)}`);
    let args: string | undefined;
    if (text[p] === '=') {
      const argTok = getToken(text, p + 1, '[],;');
      args = argTok.value;
      p = argTok.next;
    }
    const outputs: string[] = [];
    p = parseLabels(text, p, outputs);
    p = skipSpace(text, p);
    const chr = p < text.length ? text[p++]! : '';
    const at = nameTok.value.indexOf('@');
    const filter: GraphFilter = {
      inputs,
      name: at < 0 ? nameTok.value : nameTok.value.slice(0, at),
      ...(at < 0 ? {} : { instance: nameTok.value.slice(at + 1) }),
      ...(args === undefined ? {} : { args }),
      outputs,
      separator: chr === ',' || chr === ';' ? chr : '',
    };
    filters.push(filter);
    if (chr === ',' || chr === ';') continue;
    if (chr !== '') throw new FilterGraphSyntaxError(`unexpected ${JSON.stringify(chr)} near ${near(text, p - 1)}`);
    return { filters };
  }
}
