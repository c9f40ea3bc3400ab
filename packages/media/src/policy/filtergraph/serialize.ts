// Writes a checked filtergraph back out with every value escaped for both levels ffmpeg unescapes
// (the filter's option parser, then the graph parser). Because the runner passes this string, not
// the client's, ffmpeg reads exactly the names and values the policy checked.

export interface CanonicalFilter {
  inputs: readonly string[];
  name: string;
  instance?: string;
  /** Named options in order; positional values already given their option names. */
  options: ReadonlyArray<readonly [key: string, value: string]>;
  outputs: readonly string[];
  separator: ',' | ';' | '';
}

const escapeChars = (s: string, chars: string) => s.replace(/[\s\S]/g, (c) => (chars.includes(c) ? `\\${c}` : c));

/** Escapes a value for the filter option level (av_get_token with ':' as terminator). */
export function escapeOptionValue(value: string): string {
  return escapeChars(value, "\\':" + ' \t\n\r');
}

/** Escapes an argument string for the graph level (av_get_token with '[],;' as terminators). */
export function escapeGraphArgs(args: string): string {
  return escapeChars(args, "\\'[],;" + ' \t\n\r');
}

export function serializeFilter(f: CanonicalFilter): string {
  const labels = (ls: readonly string[]) => ls.map((l) => `[${l}]`).join('');
  const name = f.instance === undefined ? f.name : `${f.name}@${f.instance}`;
  const args = f.options.map(([k, v]) => `${k}=${escapeOptionValue(v)}`).join(':');
  return `${labels(f.inputs)}${name}${args === '' ? '' : `=${escapeGraphArgs(args)}`}${labels(f.outputs)}${f.separator}`;
}

/** The whole graph; labels, names and ids are already restricted to characters needing no escape. */
export function serializeFilterGraph(filters: readonly CanonicalFilter[]): string {
  return filters.map(serializeFilter).join('');
}
