// One way to say no: a 400 DomainError (kind 'bad_request') whose sentence names the token.
import { Errors } from '@media/platform';

/** Throws the 400 the gateway answers with; `sentence` must name what was refused. */
export function refuse(sentence: string): never {
  throw Errors.invalidRequest(sentence);
}

const SHOW_MAX = 60;

/**
 * A token quoted for an error sentence: control characters made visible and long tokens cut, so a
 * hostile 8 KB option cannot bloat or garble the error (the full text is in the request anyway).
 */
export function show(token: string): string {
  const text = visible(token);
  const chars = [...text];
  return chars.length <= SHOW_MAX ? `'${text}'` : `'${chars.slice(0, SHOW_MAX - 3).join('')}...'`;
}

/** Text with control characters written as \uXXXX, so a newline cannot break an error sentence. */
export function visible(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u001f\u007f-\u009f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** Length in characters (code points), the unit the spec's limits are stated in. */
export function charCount(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
// eslint-disable-next-line no-control-regex
const CONTROL_EXCEPT_LAYOUT = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/;

/** True when s holds a control character (C0, DEL or C1). */
export function hasControlChar(s: string, allowLayout = false): boolean {
  return (allowLayout ? CONTROL_EXCEPT_LAYOUT : CONTROL).test(s);
}
