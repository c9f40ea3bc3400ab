// Bounds a width/height expression (scale=iw*2:-2, pad=ih*16/9:ih) before ffmpeg evaluates it:
// a small reader for the subset of ffmpeg's expression language that size values use, evaluated
// over intervals with every input dimension in [0, 8192]. If the largest possible result is too
// big, or the expression uses anything outside the subset, the value is refused.
import { LIMITS } from '../limits.js';

interface Range {
  lo: number;
  hi: number;
}

const UNBOUNDED: Range = { lo: -Infinity, hi: Infinity };
const exact = (v: number): Range => ({ lo: v, hi: v });
const span = (...vs: number[]): Range => (vs.some(Number.isNaN) ? UNBOUNDED : { lo: Math.min(...vs), hi: Math.max(...vs) });
const BOOL: Range = { lo: 0, hi: 1 };

const DIM: Range = { lo: 0, hi: LIMITS.maxDimension };
/** Names a size expression may use, with the range each can take. */
export const DIMENSION_VARIABLES: Readonly<Record<string, Range>> = {
  iw: DIM,
  ih: DIM,
  in_w: DIM,
  in_h: DIM,
  ow: DIM,
  oh: DIM,
  out_w: DIM,
  out_h: DIM,
  main_w: DIM,
  main_h: DIM,
  W: DIM,
  H: DIM,
  w: DIM,
  h: DIM,
  rw: DIM,
  rh: DIM,
  ref_w: DIM,
  ref_h: DIM,
  // Aspect ratios: bounded at 2 so that the common ih*a and iw*sar stay within the limit.
  a: { lo: 0, hi: 2 },
  sar: { lo: 0, hi: 2 },
  dar: { lo: 0, hi: 2 },
  hsub: { lo: 1, hi: 4 },
  vsub: { lo: 1, hi: 4 },
  ohsub: { lo: 1, hi: 4 },
  ovsub: { lo: 1, hi: 4 },
  PI: exact(Math.PI),
  E: exact(Math.E),
  PHI: exact((1 + Math.sqrt(5)) / 2),
};

type Fn = (args: Range[]) => Range;
const minR = (a: Range, b: Range): Range => ({ lo: Math.min(a.lo, b.lo), hi: Math.min(a.hi, b.hi) });
const maxR = (a: Range, b: Range): Range => ({ lo: Math.max(a.lo, b.lo), hi: Math.max(a.hi, b.hi) });
const union = (a: Range, b: Range): Range => ({ lo: Math.min(a.lo, b.lo), hi: Math.max(a.hi, b.hi) });

const FUNCTIONS: Readonly<Record<string, { arity: readonly number[]; fn: Fn }>> = {
  min: { arity: [2], fn: ([a, b]) => minR(a!, b!) },
  max: { arity: [2], fn: ([a, b]) => maxR(a!, b!) },
  trunc: { arity: [1], fn: ([a]) => ({ lo: Math.floor(a!.lo), hi: Math.ceil(a!.hi) }) },
  floor: { arity: [1], fn: ([a]) => ({ lo: Math.floor(a!.lo), hi: Math.floor(a!.hi) }) },
  ceil: { arity: [1], fn: ([a]) => ({ lo: Math.ceil(a!.lo), hi: Math.ceil(a!.hi) }) },
  round: { arity: [1], fn: ([a]) => ({ lo: Math.round(a!.lo), hi: Math.round(a!.hi) }) },
  abs: { arity: [1], fn: ([a]) => (a!.lo >= 0 ? a! : a!.hi <= 0 ? { lo: -a!.hi, hi: -a!.lo } : { lo: 0, hi: Math.max(-a!.lo, a!.hi) }) },
  if: { arity: [2, 3], fn: ([, a, b]) => union(a!, b ?? exact(0)) },
  ifnot: { arity: [2, 3], fn: ([, a, b]) => union(a!, b ?? exact(0)) },
  clip: { arity: [3], fn: ([x, lo, hi]) => maxR(lo!, minR(x!, hi!)) },
  gt: { arity: [2], fn: () => BOOL },
  gte: { arity: [2], fn: () => BOOL },
  lt: { arity: [2], fn: () => BOOL },
  lte: { arity: [2], fn: () => BOOL },
  eq: { arity: [2], fn: () => BOOL },
  not: { arity: [1], fn: () => BOOL },
  between: { arity: [3], fn: () => BOOL },
};

class Unsupported extends Error {}

/** Reads and bounds one expression; throws Unsupported with a reason. */
class Reader {
  private p = 0;
  constructor(private readonly s: string) {}

  read(): Range {
    const r = this.sum();
    this.space();
    if (this.p < this.s.length) throw new Unsupported(`unexpected ${JSON.stringify(this.s[this.p])}`);
    return r;
  }

  private space() {
    while (this.p < this.s.length && /\s/.test(this.s[this.p]!)) this.p++;
  }

  private sum(): Range {
    let r = this.product();
    for (;;) {
      this.space();
      const op = this.s[this.p];
      if (op !== '+' && op !== '-') return r;
      this.p++;
      const b = this.product();
      r = op === '+' ? { lo: r.lo + b.lo, hi: r.hi + b.hi } : { lo: r.lo - b.hi, hi: r.hi - b.lo };
      if (Number.isNaN(r.lo) || Number.isNaN(r.hi)) r = UNBOUNDED;
    }
  }

  private product(): Range {
    let r = this.power();
    for (;;) {
      this.space();
      const op = this.s[this.p];
      if (op !== '*' && op !== '/') return r;
      this.p++;
      const b = this.power();
      if (op === '*') r = span(r.lo * b.lo, r.lo * b.hi, r.hi * b.lo, r.hi * b.hi);
      else if (b.lo <= 0 && b.hi >= 0) r = UNBOUNDED;
      else r = span(r.lo / b.lo, r.lo / b.hi, r.hi / b.lo, r.hi / b.hi);
    }
  }

  private power(): Range {
    const base = this.unary();
    this.space();
    if (this.s[this.p] !== '^') return base;
    this.p++;
    const e = this.power();
    if (e.lo !== e.hi || e.lo < 0 || base.lo < 0) return UNBOUNDED;
    return { lo: base.lo ** e.lo, hi: base.hi ** e.lo };
  }

  private unary(): Range {
    this.space();
    const c = this.s[this.p];
    if (c === '+') {
      this.p++;
      return this.unary();
    }
    if (c === '-') {
      this.p++;
      const r = this.unary();
      return { lo: -r.hi, hi: -r.lo };
    }
    return this.primary();
  }

  private primary(): Range {
    this.space();
    const rest = this.s.slice(this.p);
    const num = /^(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?/.exec(rest);
    if (num) {
      this.p += num[0].length;
      if (/^[A-Za-z_]/.test(this.s.slice(this.p)))
        throw new Unsupported(`a number with a suffix (${JSON.stringify(num[0] + this.s[this.p])})`);
      return exact(Number(num[0]));
    }
    if (rest.startsWith('(')) {
      this.p++;
      const r = this.sum();
      this.expect(')');
      return r;
    }
    const name = /^[A-Za-z_][A-Za-z0-9_]*/.exec(rest);
    if (!name) throw new Unsupported(rest === '' ? 'an incomplete expression' : `unexpected ${JSON.stringify(rest[0])}`);
    this.p += name[0].length;
    this.space();
    if (this.s[this.p] !== '(') {
      const v = DIMENSION_VARIABLES[name[0]];
      if (!v) throw new Unsupported(`the name '${name[0]}'`);
      return v;
    }
    const f = FUNCTIONS[name[0]];
    if (!f) throw new Unsupported(`the function '${name[0]}'`);
    this.p++;
    const args: Range[] = [this.sum()];
    for (this.space(); this.s[this.p] === ','; this.space()) {
      this.p++;
      args.push(this.sum());
    }
    this.expect(')');
    if (!f.arity.includes(args.length)) throw new Unsupported(`'${name[0]}' with ${args.length} arguments`);
    return f.fn(args);
  }

  private expect(c: string) {
    this.space();
    if (this.s[this.p] !== c) throw new Unsupported(`a missing ${JSON.stringify(c)}`);
    this.p++;
  }
}

/**
 * Why a width/height value is not acceptable, or null. Plain numbers may be up to 8192; an
 * expression's largest possible value, with inputs up to 8192 pixels, may be up to 16384.
 */
export function dimensionProblem(value: string): string | null {
  const v = value.trim();
  if (/^[+-]?\d+(\.\d+)?$/.test(v)) {
    return Number(v) > LIMITS.maxDimension ? `exceeds ${LIMITS.maxDimension} pixels` : null;
  }
  let r: Range;
  try {
    r = new Reader(v).read();
  } catch (e) {
    if (e instanceof Unsupported) return `uses ${e.message}, which size values may not use`;
    throw e;
  }
  if (r.lo === r.hi && r.hi > LIMITS.maxDimension) return `exceeds ${LIMITS.maxDimension} pixels`;
  if (!(r.hi <= LIMITS.maxDimensionExpression)) {
    return `can exceed ${LIMITS.maxDimensionExpression} pixels for inputs up to ${LIMITS.maxDimension} pixels`;
  }
  return null;
}
