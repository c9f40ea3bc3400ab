// A filter's argument string, read the way libavfilter's process_options reads it: ':'-separated
// values, each either "key=value" or a bare value that fills the filter's next option in order
// (scale=320:-2 is w=320, h=-2). After the first key=value, bare values are an error. Values go
// through av_get_token again (second escaping level), so select='eq(n\,0)' reaches the filter as
// eq(n,0).
import { getToken, skipSpace } from './token.js';
import { FilterGraphSyntaxError } from './parse-graph.js';

export interface FilterArgs {
  /** Bare values in order; they fill the filter's options in ffmpeg's shorthand order. */
  positional: string[];
  /** key=value pairs in order (a key may repeat; ffmpeg keeps the last). */
  named: Array<[key: string, value: string]>;
}

// av_opt_get_key_value's key characters.
const isKeyChar = (c: string | undefined) => c !== undefined && /[A-Za-z0-9_./-]/.test(c);

export function parseFilterArgs(args: string): FilterArgs {
  const positional: string[] = [];
  const named: Array<[string, string]> = [];
  let p = 0;
  while (p < args.length) {
    const keyStart = skipSpace(args, p);
    let k = keyStart;
    while (isKeyChar(args[k])) k++;
    const keyEnd = k;
    k = skipSpace(args, k);
    let key: string | null = null;
    if (args[k] === '=') {
      key = args.slice(keyStart, keyEnd);
      p = k + 1;
    } else if (named.length > 0) {
      throw new FilterGraphSyntaxError(`a value without a name follows a named option near ${JSON.stringify(args.slice(p, p + 24))}`);
    }
    const tok = getToken(args, p, ':');
    p = tok.next;
    if (p < args.length) p++; // the ':' separator
    if (key === null) positional.push(tok.value);
    else named.push([key, tok.value]);
  }
  return { positional, named };
}
