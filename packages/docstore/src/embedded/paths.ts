// Dotted-path access ("a.b.0.c") on documents, with MongoDB's rules for updates.
import { isPlainObject, type Plain } from './values.js';

export class UpdatePathError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UpdatePathError';
  }
}

function isIndex(seg: string): boolean {
  return /^(0|[1-9][0-9]*)$/.test(seg);
}

/** The value at a path, without array fan-out (used by update operators). */
export function getPath(doc: unknown, path: string): unknown {
  let cur: unknown = doc;
  for (const seg of path.split('.')) {
    if (Array.isArray(cur) && isIndex(seg)) cur = cur[Number(seg)];
    else if (isPlainObject(cur)) cur = cur[seg];
    else return undefined;
  }
  return cur;
}

/**
 * Every value a path reaches, fanning out over arrays like MongoDB's multikey indexes:
 * {a: [{b: 1}, {b: 2}]} at "a.b" gives [1, 2]; a terminal array contributes its elements.
 * A missing path gives [undefined] (indexed as null).
 */
export function collectValues(doc: unknown, path: string): unknown[] {
  const out: unknown[] = [];
  const walk = (cur: unknown, segs: string[]): void => {
    if (segs.length === 0) {
      if (Array.isArray(cur)) {
        if (cur.length === 0) out.push(undefined);
        else out.push(...cur);
      } else out.push(cur);
      return;
    }
    const [seg, ...rest] = segs;
    if (Array.isArray(cur)) {
      if (isIndex(seg!)) walk(cur[Number(seg)], rest);
      else for (const el of cur) if (isPlainObject(el)) walk(el[seg!], rest);
      return;
    }
    walk(isPlainObject(cur) ? cur[seg!] : undefined, rest);
  };
  walk(doc, path.split('.'));
  return out.length === 0 ? [undefined] : out;
}

/** Walks to the parent container of a path, creating objects on the way (for $set, $inc, $push). */
function parentFor(doc: Plain, path: string, create: boolean): { parent: Plain | unknown[]; key: string } | null {
  const segs = path.split('.');
  if (segs.some((s) => s === '' || s.startsWith('$'))) {
    throw new UpdatePathError(`unsupported update path '${path}' (positional and empty segments are not supported)`);
  }
  let cur: Plain | unknown[] = doc;
  for (let i = 0; i < segs.length - 1; i++) {
    const seg = segs[i]!;
    if (Array.isArray(cur) && !isIndex(seg)) {
      if (!create) return null;
      throw new UpdatePathError(`Cannot create field '${seg}' in array at '${segs.slice(0, i).join('.')}'`);
    }
    let next: unknown = Array.isArray(cur) ? cur[Number(seg)] : cur[seg];
    if (next === undefined || next === null) {
      if (!create) return null;
      next = {};
      if (Array.isArray(cur)) cur[Number(seg)] = next;
      else cur[seg] = next;
    } else if (!isPlainObject(next) && !Array.isArray(next)) {
      if (!create) return null;
      throw new UpdatePathError(`Cannot create field '${segs[i + 1]}' in element {${seg}: ${JSON.stringify(next)}}`);
    }
    cur = next as Plain | unknown[];
  }
  return { parent: cur, key: segs[segs.length - 1]! };
}

export function setPath(doc: Plain, path: string, value: unknown): void {
  const { parent, key } = parentFor(doc, path, true)!;
  if (Array.isArray(parent)) {
    if (!isIndex(key)) throw new UpdatePathError(`Cannot create field '${key}' in an array`);
    const idx = Number(key);
    while (parent.length < idx) parent.push(null); // MongoDB pads with nulls
    parent[idx] = value;
  } else parent[key] = value;
}

export function unsetPath(doc: Plain, path: string): void {
  const found = parentFor(doc, path, false);
  if (!found) return;
  const { parent, key } = found;
  // $unset on an array element sets it to null rather than shifting the array (MongoDB rule).
  if (Array.isArray(parent)) {
    if (isIndex(key) && Number(key) < parent.length) parent[Number(key)] = null;
  } else delete parent[key];
}
