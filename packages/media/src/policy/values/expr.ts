// FFmpeg's expression language (libavutil/eval.c) for constant expressions: what av_opt_set
// evaluates for a number option ("1000*48", "default+1", "max") and av_parse_ratio for rates
// ("30000/1001"). Mirrors eval.c: whitespace is removed first; a sign belongs to the factor after
// '^' is applied (-2^2 is -4); names match only as whole identifiers; functions are looked up by
// the name before the next '(' wherever it is. while(), root() and taylor() can run without end;
// random() and time() are not constants: all five are refused.

import { parseStrtod } from './strtod.js';

export type EvalResult = { value: number } | { error: string };

class ExprEvalError extends Error {}

const BUILTIN_CONSTANTS: Readonly<Record<string, number>> = { E: Math.E, PI: Math.PI, PHI: (1 + Math.sqrt(5)) / 2, QP2LAMBDA: 118 };
const REFUSED: Readonly<Record<string, string>> = {
  while: 'can run without end',
  root: 'can run without end',
  taylor: 'can run without end',
  random: 'is not a constant value',
  time: 'is not a constant value',
};

const isIdent = (c: string | undefined) => c !== undefined && /[0-9A-Za-z_]/.test(c);

type Fn = (args: number[], vars: number[]) => number;
const fmod = (a: number, b: number) => a - Math.floor(a / b) * b;
const gcd = (a: number, b: number): number => {
  let x = Math.abs(Math.trunc(a));
  let y = Math.abs(Math.trunc(b));
  while (y) [x, y] = [y, x % y];
  return x;
};

/** A function of one argument, or of two. */
const unary = (f: (a: number) => number): [number, number, Fn] => [1, 1, ([a]) => f(a!)];
const binary = (f: (a: number, b: number) => number): [number, number, Fn] => [2, 2, ([a, b]) => f(a!, b!)];

/** eval.c's functions: [fewest, most] arguments, and the computation. */
const FUNCTIONS: Readonly<Record<string, [number, number, Fn]>> = {
  sinh: unary(Math.sinh),
  cosh: unary(Math.cosh),
  tanh: unary(Math.tanh),
  sin: unary(Math.sin),
  cos: unary(Math.cos),
  tan: unary(Math.tan),
  atan: unary(Math.atan),
  asin: unary(Math.asin),
  acos: unary(Math.acos),
  exp: unary(Math.exp),
  log: unary(Math.log),
  abs: unary(Math.abs),
  squish: [1, 1, ([a]) => 1 / (1 + Math.exp(4 * a!))],
  gauss: [1, 1, ([a]) => Math.exp(-(a! * a!) / 2) / Math.sqrt(2 * Math.PI)],
  mod: binary(fmod),
  max: binary(Math.max),
  min: binary(Math.min),
  eq: [2, 2, ([a, b]) => Number(a === b)],
  gte: [2, 2, ([a, b]) => Number(a! >= b!)],
  gt: [2, 2, ([a, b]) => Number(a! > b!)],
  lte: [2, 2, ([a, b]) => Number(a! <= b!)],
  lt: [2, 2, ([a, b]) => Number(a! < b!)],
  isnan: [1, 1, ([a]) => Number(Number.isNaN(a))],
  isinf: [1, 1, ([a]) => Number(a === Infinity || a === -Infinity)],
  floor: unary(Math.floor),
  ceil: unary(Math.ceil),
  trunc: unary(Math.trunc),
  round: unary(Math.round),
  sqrt: unary(Math.sqrt),
  not: [1, 1, ([a]) => Number(!a)],
  pow: [2, 2, ([a, b]) => a! ** b!],
  print: [1, 2, ([a]) => a!],
  hypot: binary(Math.hypot),
  gcd: binary(gcd),
  if: [2, 3, ([a, b, c]) => (a ? b! : (c ?? 0))],
  ifnot: [2, 3, ([a, b, c]) => (a ? (c ?? 0) : b!)],
  bitand: [2, 2, ([a, b]) => Number(BigInt(Math.trunc(a!)) & BigInt(Math.trunc(b!)))],
  bitor: [2, 2, ([a, b]) => Number(BigInt(Math.trunc(a!)) | BigInt(Math.trunc(b!)))],
  between: [3, 3, ([x, a, b]) => Number(x! >= a! && x! <= b!)],
  clip: [3, 3, ([x, a, b]) => Math.max(a!, Math.min(b!, x!))],
  atan2: binary(Math.atan2),
  lerp: [3, 3, ([a, b, c]) => a! + (b! - a!) * c!],
  sgn: unary(Math.sign),
  ld: [1, 1, ([a], vars) => vars[Math.trunc(a!)] ?? 0],
  st: [
    2,
    2,
    ([a, b], vars) => {
      const i = Math.trunc(a!);
      if (i >= 0 && i < 10) vars[i] = b!;
      return b!;
    },
  ],
};

class Reader {
  private p = 0;
  private readonly vars: number[] = new Array(10).fill(0);

  constructor(
    private readonly s: string,
    private readonly constants: Readonly<Record<string, number>>,
  ) {}

  run(): number {
    const v = this.expr();
    if (this.p < this.s.length) throw new ExprEvalError(`unexpected '${this.s[this.p]}'`);
    return v;
  }

  // expr := subexpr (';' subexpr)*
  private expr(): number {
    let v = this.subexpr();
    while (this.s[this.p] === ';') {
      this.p++;
      v = this.subexpr();
    }
    return v;
  }

  // The sign of a term is read by the term itself: 1-2 is 1 + (-2).
  private subexpr(): number {
    let v = this.term();
    while (this.s[this.p] === '+' || this.s[this.p] === '-') v += this.term();
    return v;
  }

  private term(): number {
    let v = this.factor();
    while (this.s[this.p] === '*' || this.s[this.p] === '/') {
      const op = this.s[this.p++];
      const b = this.factor();
      v = op === '*' ? v * b : v / b;
    }
    return v;
  }

  private factor(): number {
    const [base, sign] = this.dB();
    let v = base;
    while (this.s[this.p] === '^') {
      this.p++;
      const [e, sign2] = this.pow();
      v = v ** (e * (sign2 || 1));
    }
    return v * (sign || 1);
  }

  /** -3dB is (-3)dB, not -(3dB). */
  private dB(): [number, number] {
    if (this.s[this.p] === '-' && /^-(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?dB/.test(this.s.slice(this.p))) {
      const num = parseStrtod(this.s.slice(this.p))!;
      this.p = this.s.length - num.rest.length;
      return [num.value, 0];
    }
    return this.pow();
  }

  private pow(): [number, number] {
    const c = this.s[this.p];
    const sign = c === '+' ? 1 : c === '-' ? -1 : 0;
    if (sign !== 0) this.p++;
    return [this.primary(), sign];
  }

  private matches(name: string): boolean {
    return this.s.startsWith(name, this.p) && !isIdent(this.s[this.p + name.length]);
  }

  private primary(): number {
    const num = parseNumber(this.s.slice(this.p));
    if (num) {
      this.p = this.s.length - num.rest.length;
      return num.value;
    }
    // Longest names first, so that a constant is not taken for a shorter one it starts with.
    const names = [...Object.keys(this.constants), ...Object.keys(BUILTIN_CONSTANTS)].sort((a, b) => b.length - a.length);
    for (const name of names) {
      if (this.matches(name)) {
        this.p += name.length;
        return Object.hasOwn(this.constants, name) ? this.constants[name]! : BUILTIN_CONSTANTS[name]!;
      }
    }
    const start = this.p;
    const open = this.s.indexOf('(', this.p);
    if (open < 0)
      throw new ExprEvalError(`'${identAt(this.s, start) || this.s.slice(start, start + 12)}' is not a number or a name it knows`);
    this.p = open + 1;
    if (open === start) {
      const v = this.expr();
      this.expect(')');
      return v;
    }
    const args = [this.expr()];
    while (this.s[this.p] === ',' && args.length < 3) {
      this.p++;
      args.push(this.expr());
    }
    this.expect(')');
    const name = identAt(this.s, start);
    const known = Object.keys(REFUSED).find((n) => this.s.startsWith(n, start) && !isIdent(this.s[start + n.length]));
    if (known) throw new ExprEvalError(`${known}() ${REFUSED[known]}`);
    const fn = Object.entries(FUNCTIONS).find(([n]) => this.s.startsWith(n, start) && !isIdent(this.s[start + n.length]));
    if (!fn) throw new ExprEvalError(`'${name}' is not a function it knows`);
    const [lo, hi, f] = fn[1];
    if (args.length < lo || args.length > hi) throw new ExprEvalError(`${fn[0]}() takes ${lo === hi ? lo : `${lo} to ${hi}`} arguments`);
    return f(args, this.vars);
  }

  private expect(c: string) {
    if (this.s[this.p] !== c) throw new ExprEvalError(`a missing '${c}'`);
    this.p++;
  }
}

const identAt = (s: string, p: number) => /^[0-9A-Za-z_]*/.exec(s.slice(p))![0];

function parseNumber(s: string): { value: number; rest: string } | null {
  // Only an unsigned number here: signs are the factor's (eval.c's av_strtod would take one, but
  // parse_pow has consumed it already).
  if (!/^(?:\d|\.\d)/.test(s)) return null;
  return parseStrtod(s);
}

/**
 * Evaluates a constant expression as av_expr_parse_and_eval would, with these named constants
 * (and eval.c's E, PI, PHI, QP2LAMBDA). An error says what is not understood.
 */
export function evaluate(text: string, constants: Readonly<Record<string, number>> = {}): EvalResult {
  const s = text.replace(/\s+/g, '');
  if (s === '') return { error: 'is empty' };
  try {
    return { value: new Reader(s, constants).run() };
  } catch (e) {
    if (e instanceof ExprEvalError) return { error: e.message };
    throw e;
  }
}
