// Value helpers shared by the embedded engine: copying documents in and out (so callers never hold
// references into the store), BSON-like equality, and a canonical string form for index keys.

export type Plain = Record<string, unknown>;

export function isPlainObject(v: unknown): v is Plain {
  if (v === null || typeof v !== 'object') return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

/**
 * Deep copy of a document value. `undefined` becomes null, as the MongoDB driver serialises it,
 * so both engines store the same thing and the on-disk form matches the in-memory one.
 */
export function cloneValue<T>(v: T): T {
  if (v === undefined) return null as T;
  if (v === null || typeof v !== 'object') return v;
  if (v instanceof Date) return new Date(v.getTime()) as T;
  if (Array.isArray(v)) return v.map((x) => cloneValue(x)) as T;
  if (isPlainObject(v)) {
    const out: Plain = {};
    for (const [k, x] of Object.entries(v)) out[k] = cloneValue(x);
    return out as T;
  }
  if (v instanceof RegExp) return new RegExp(v.source, v.flags) as T;
  throw new TypeError(`unsupported value in document: ${Object.prototype.toString.call(v)}`);
}

/** Equality as MongoDB compares values: Dates by instant, arrays by element, objects by field order. */
export function valuesEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a instanceof Date || b instanceof Date) {
    return a instanceof Date && b instanceof Date && a.getTime() === b.getTime();
  }
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => valuesEqual(x, b[i]));
  }
  if (isPlainObject(a) && isPlainObject(b)) {
    const ka = Object.keys(a);
    const kb = Object.keys(b);
    return ka.length === kb.length && ka.every((k, i) => k === kb[i] && valuesEqual(a[k], b[k]));
  }
  // null and undefined (missing) are the same value to MongoDB.
  return (a === null || a === undefined) && (b === null || b === undefined);
}

/** Canonical, type-tagged string for an index key part: equal values give equal strings. */
export function keyPart(v: unknown): string {
  if (v === null || v === undefined) return 'z';
  if (typeof v === 'number') return `n${Object.is(v, -0) ? 0 : v}`;
  if (typeof v === 'string') return `s${JSON.stringify(v)}`;
  if (typeof v === 'boolean') return v ? 'bt' : 'bf';
  if (v instanceof Date) return `d${v.getTime()}`;
  if (Array.isArray(v)) return `a[${v.map(keyPart).join(',')}]`;
  if (isPlainObject(v))
    return `o{${Object.entries(v)
      .map(([k, x]) => `${JSON.stringify(k)}:${keyPart(x)}`)
      .join(',')}}`;
  return `x${String(v)}`;
}

/** Short human-readable rendering for error messages. */
export function describe(v: unknown): string {
  try {
    return JSON.stringify(v) ?? String(v);
  } catch {
    return String(v);
  }
}
