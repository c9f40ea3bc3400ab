// BSON value helpers: copies, a canonical key string per value (for unique indexes and _id lookup),
// field paths with array fan-out, and MongoDB-style rendering for error messages.
import { BSON, type Document } from 'bson';

export function isPlainObject(v: unknown): v is Document {
  if (v === null || typeof v !== 'object') return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

/** Deep copy that keeps every BSON type (ObjectId, Binary, Long...) as it is. */
export function copyDoc<T extends Document>(doc: T): T {
  return BSON.deserialize(BSON.serialize(doc)) as T;
}

function bsonType(v: object): string | undefined {
  return (v as { _bsontype?: string })._bsontype;
}

/** Canonical string of a value: values MongoDB considers equal give the same string. */
export function keyOf(v: unknown): string {
  if (v === null || v === undefined) return 'z';
  if (typeof v === 'number') return `n${Object.is(v, -0) ? 0 : v}`;
  if (typeof v === 'bigint') return `n${v}`;
  if (typeof v === 'string') return `s${JSON.stringify(v)}`;
  if (typeof v === 'boolean') return v ? 'bt' : 'bf';
  if (v instanceof Date) return `d${v.getTime()}`;
  if (v instanceof RegExp) return `r/${v.source}/${v.flags}`;
  if (Array.isArray(v)) return `a[${v.map(keyOf).join(',')}]`;
  if (typeof v === 'object') {
    switch (bsonType(v)) {
      case 'ObjectId':
        return `o${(v as { toHexString(): string }).toHexString()}`;
      case 'Long':
      case 'Int32':
      case 'Double':
        return `n${Number((v as { valueOf(): number }).valueOf())}`;
      case 'Binary': {
        const b = v as { sub_type: number; buffer: Uint8Array };
        return `x${b.sub_type}:${Buffer.from(b.buffer).toString('base64')}`;
      }
      case undefined:
        return `{${Object.entries(v)
          .map(([k, x]) => `${JSON.stringify(k)}:${keyOf(x)}`)
          .join(',')}}`;
      default:
        return `${bsonType(v)}:${String(v)}`;
    }
  }
  return `?${String(v)}`;
}

/** Every value a dotted path reaches, fanning out over arrays; [undefined] when missing. */
export function pathValues(doc: unknown, path: string): unknown[] {
  const out: unknown[] = [];
  const walk = (cur: unknown, segs: string[]): void => {
    if (segs.length === 0) {
      if (Array.isArray(cur)) out.push(...(cur.length ? cur : [undefined]));
      else out.push(cur);
      return;
    }
    const [seg, ...rest] = segs as [string, ...string[]];
    if (Array.isArray(cur)) {
      if (/^\d+$/.test(seg)) walk(cur[Number(seg)], rest);
      else for (const el of cur) if (isPlainObject(el)) walk(el[seg], rest);
    } else walk(isPlainObject(cur) ? cur[seg] : undefined, rest);
  };
  walk(doc, path.split('.'));
  return out.length ? out : [undefined];
}

/** Sets a dotted path, creating objects on the way (upsert seeds). */
export function setPath(doc: Document, path: string, value: unknown): void {
  const segs = path.split('.');
  let cur: Document = doc;
  for (const seg of segs.slice(0, -1)) {
    if (!isPlainObject(cur[seg])) cur[seg] = {};
    cur = cur[seg] as Document;
  }
  cur[segs[segs.length - 1]!] = value;
}

/** Renders a value roughly the way the server's error messages do: { email: "a@b" }. */
export function render(v: unknown): string {
  if (v === undefined || v === null) return 'null';
  if (typeof v === 'string') return JSON.stringify(v);
  if (v instanceof Date) return `new Date(${v.getTime()})`;
  if (Array.isArray(v)) return `[ ${v.map(render).join(', ')} ]`;
  if (typeof v === 'object') {
    const t = bsonType(v);
    if (t === 'ObjectId') return `ObjectId('${(v as { toHexString(): string }).toHexString()}')`;
    if (t) return String(v);
    const entries = Object.entries(v);
    return entries.length ? `{ ${entries.map(([k, x]) => `${k}: ${render(x)}`).join(', ')} }` : '{}';
  }
  return String(v);
}
