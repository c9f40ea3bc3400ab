// NATS subject rules, shared by both adapters so they accept and match exactly the same subjects.

const TOKEN = /^[^\s.*>]+$/;

/** A publish subject: dot-separated non-empty tokens, no wildcards, no whitespace. */
export function assertPublishSubject(subject: string): void {
  const tokens = subject.split('.');
  if (!subject || !tokens.every((t) => TOKEN.test(t))) {
    throw new Error(`invalid publish subject "${subject}" (dot-separated tokens, no wildcards or spaces)`);
  }
}

/** A subscription filter: like a subject, plus "*" for one token and a trailing ">" for one or more. */
export function assertFilter(filter: string): void {
  const tokens = filter.split('.');
  const ok = Boolean(filter) && tokens.every((t, i) => t === '*' || (t === '>' && i === tokens.length - 1) || TOKEN.test(t));
  if (!ok) throw new Error(`invalid subject filter "${filter}"`);
}

/** Does `subject` match `filter` under NATS wildcard rules? */
export function subjectMatches(filter: string, subject: string): boolean {
  const f = filter.split('.');
  const s = subject.split('.');
  for (let i = 0; i < f.length; i++) {
    if (f[i] === '>') return s.length > i;
    if (i >= s.length) return false;
    if (f[i] !== '*' && f[i] !== s[i]) return false;
  }
  return f.length === s.length;
}

/** Is every subject matched by `filter` also matched by `outer` (filter is a subset of outer)? */
export function filterWithin(filter: string, outer: string): boolean {
  const f = filter.split('.');
  const o = outer.split('.');
  for (let i = 0; i < o.length; i++) {
    if (o[i] === '>') return f.length > i;
    if (i >= f.length) return false;
    if (f[i] === '>') return false; // filter reaches further than a single token of outer
    if (o[i] !== '*' && (f[i] === '*' || f[i] !== o[i])) return false;
  }
  return f.length === o.length;
}

/** Durable names become JetStream consumer names: no dots, wildcards, whitespace or slashes. */
export function assertDurableName(name: string): void {
  if (!/^[A-Za-z0-9_-]+$/.test(name)) {
    throw new Error(`invalid durable name "${name}" (use letters, digits, "_" and "-")`);
  }
}
