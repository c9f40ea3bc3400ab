// One AVOption value (of a filter, codec, format, scaler or resampler), judged by its verdict and
// checked by its catalogue type: the canonical value to pass to ffmpeg, or a 400 naming the option.
import type { AvOption } from '../catalogue/types.js';
import { dimensionProblem } from '../filtergraph/dimension.js';
import { unboundedExpressionFunction } from '../filtergraph/expression.js';
import { LIMITS } from '../limits.js';
import { pathOrUrlProblem } from '../path-like.js';
import { hasControlChar, refuse, show } from '../refuse.js';
import { checkAvValue } from '../values/av-value.js';
import type { OptionVerdict, SideKind } from '../verdicts/types.js';
import { parseVideoRate, parseVideoSize } from '../values/cli-values.js';

export interface ValueContext {
  /** The option for messages, at the start of a sentence: "Option '-crf'", "Option 'w' of filter 'scale'". */
  what: string;
  /**
   * Resolves a value that names a task input used as a side file; returns the path to pass to
   * ffmpeg. Absent where side files cannot be named (input options).
   */
  sideFile?: (use: SideKind, value: string, what: string) => string;
}

const STRINGY = new Set(['string', 'dict', 'binary']);

/** The value to give ffmpeg for `raw`, or a refusal naming the option and what is wrong. */
export function checkOptionValue(opt: AvOption, verdict: OptionVerdict, raw: string, ctx: ValueContext): string {
  if (typeof verdict === 'object' && 'refuse' in verdict) refuse(`${ctx.what} is not allowed: ${verdict.refuse}`);
  if (typeof verdict === 'object' && 'pinned' in verdict) refuse(`${ctx.what} is set by the service (${verdict.why}) and cannot be given`);
  // Text may hold tabs and line breaks (drawtext); nothing else may hold control characters.
  if (hasControlChar(raw, verdict === 'text')) refuse(`Value of ${lower(ctx.what)} contains a control character`);
  const problem = (p: string | null): void => {
    if (p !== null) refuse(`Value ${show(raw)} of ${lower(ctx.what)} ${p}`);
  };
  if (typeof verdict === 'object' && 'input' in verdict) {
    if (!ctx.sideFile) refuse(`${ctx.what} names a file; it can only be used in a filter of an output or of task.filter_complex`);
    return ctx.sideFile(verdict.input, raw, ctx.what);
  }
  if (typeof verdict === 'object' && 'params' in verdict) return checkParams(raw, verdict.params, ctx);
  switch (verdict) {
    case 'text':
      return raw;
    case 'expr':
      problem(unboundedExpressionFunction(raw) ? `uses ${unboundedExpressionFunction(raw)}(), which can run without end` : null);
      return raw;
    case 'token':
      problem(pathLike(raw));
      return STRINGY.has(opt.type) ? raw : typed(opt, raw, problem);
    case 'dimension':
      problem(dimensionProblem(raw));
      return raw;
    case 'rate':
      problem(rateProblem(raw));
      return raw;
    case 'size': {
      const size = parseVideoSize(raw);
      if (!size) problem('must be a size such as 1280x720 or a name such as hd720');
      if (size![0] > LIMITS.maxDimension || size![1] > LIMITS.maxDimension)
        problem(`must be at most ${LIMITS.maxDimension}x${LIMITS.maxDimension}`);
      return `${size![0]}x${size![1]}`;
    }
    case 'font':
      problem(fontProblem(raw));
      return raw;
    case 'allow':
      // A string judged 'allow' is still checked like a token: nothing unjudged may name a file.
      if (STRINGY.has(opt.type)) {
        problem(pathLike(raw));
        return raw;
      }
      return typed(opt, raw, problem);
    default: {
      const canonical = typed(opt, raw, problem);
      const n = Number(canonical);
      if (Number.isFinite(n)) {
        if (verdict.max !== undefined && n > verdict.max) problem(`must be at most ${verdict.max} (${verdict.why})`);
        if (verdict.min !== undefined && n < verdict.min) problem(`must be at least ${verdict.min} (${verdict.why})`);
      }
      return canonical;
    }
  }
}

/** The catalogue type's check, with the service's bounds on frame sizes and rates. */
function typed(opt: AvOption, raw: string, problem: (p: string | null) => void): string {
  const checked = checkAvValue(opt, raw);
  if ('problem' in checked) problem(checked.problem);
  const canonical = (checked as { canonical: string }).canonical;
  if (opt.type === 'image_size') {
    const m = /^(\d+)x(\d+)$/.exec(canonical);
    if (m && (Number(m[1]) > LIMITS.maxDimension || Number(m[2]) > LIMITS.maxDimension)) {
      problem(`must be at most ${LIMITS.maxDimension}x${LIMITS.maxDimension}`);
    }
  }
  if (opt.type === 'video_rate') {
    const m = /^(\d+)(?:\/(\d+))?$/.exec(canonical);
    if (m && Number(m[1]) / Number(m[2] ?? 1) > LIMITS.maxFrameRate) problem(`must be at most ${LIMITS.maxFrameRate} frames per second`);
  }
  return canonical;
}

function pathLike(raw: string): string | null {
  const path = pathOrUrlProblem(raw);
  return path ? `must not name a file or URL (it looks like ${path})` : null;
}

/**
 * A fontconfig pattern is matched against the service's fonts only, but a pattern can name a
 * file (file=...) or a directory: those are refused outright.
 */
function fontProblem(raw: string): string | null {
  if (/[/\\]|(^|[:,])\s*file\s*=/i.test(raw))
    return 'must be a font family such as DejaVu Sans, not a file (name an uploaded font with fontfile=)';
  return null;
}

/** key=value pairs joined by ':' (x264-params): refused keys name files; values are tokens. */
function checkParams(raw: string, refused: Readonly<Record<string, string>>, ctx: ValueContext): string {
  for (const pair of raw.split(':')) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    const key = (eq < 0 ? pair : pair.slice(0, eq)).trim();
    if (Object.hasOwn(refused, key)) refuse(`${ctx.what}: the key ${show(key)} is not allowed: ${refused[key]}`);
    const value = eq < 0 ? '' : pair.slice(eq + 1);
    const path = pathOrUrlProblem(value);
    if (path) refuse(`${ctx.what}: the value of ${show(key)} must not name a file or URL (it looks like ${path})`);
  }
  return raw;
}

function rateProblem(raw: string): string | null {
  const r = parseVideoRate(raw);
  if (r === undefined) return 'must be a frame rate such as 30, 29.97, 30000/1001 or ntsc';
  return r > LIMITS.maxFrameRate ? `must be at most ${LIMITS.maxFrameRate} frames per second` : null;
}

const lower = (what: string) => what.charAt(0).toLowerCase() + what.slice(1);
