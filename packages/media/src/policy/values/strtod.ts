// av_strtod (libavutil/eval.c): a number as FFmpeg reads one in option values and expressions:
// decimal or hexadecimal (0x), then an optional SI prefix (k, M, G...; with 'i' 1024-based), then
// an optional 'B' (bytes: times 8), or 'dB' (decibels: 10^(x/20)).

/** [binary, decimal] multiplier of each SI prefix eval.c knows. */
const SI: Readonly<Record<string, readonly [number, number]>> = {
  // biome-ignore lint/correctness/noPrecisionLoss: the constants as eval.c writes them
  y: [8.271806125530276749e-25, 1e-24],
  z: [8.4703294725430034e-22, 1e-21],
  a: [8.6736173798840355e-19, 1e-18],
  f: [8.8817841970012523e-16, 1e-15],
  p: [9.0949470177292824e-13, 1e-12],
  n: [9.3132257461547852e-10, 1e-9],
  u: [9.5367431640625e-7, 1e-6],
  m: [9.765625e-4, 1e-3],
  c: [9.8431332023036951e-3, 1e-2],
  d: [9.921256574801247e-2, 1e-1],
  h: [1.0159366732596479e2, 1e2],
  k: [1.024e3, 1e3],
  K: [1.024e3, 1e3],
  M: [1.048576e6, 1e6],
  G: [1.073741824e9, 1e9],
  T: [1.099511627776e12, 1e12],
  P: [1.125899906842624e15, 1e15],
  E: [1.152921504606847e18, 1e18],
  Z: [1.1805916207174113e21, 1e21],
  Y: [1.2089258196146292e24, 1e24],
};

// C's strtod without its inf/nan and hexadecimal-float forms (values FFmpeg options never need).
const DECIMAL = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?/;
const HEX = /^0[xX][0-9a-fA-F]+/;

/** The number at the start of `text` and what follows it, or null when there is none. */
export function parseStrtod(text: string): { value: number; rest: string } | null {
  let value: number;
  let rest: string;
  const hex = HEX.exec(text);
  if (hex) {
    value = Number.parseInt(hex[0].slice(2), 16);
    rest = text.slice(hex[0].length);
  } else {
    const dec = DECIMAL.exec(text);
    if (!dec) return null;
    value = Number(dec[0]);
    rest = text.slice(dec[0].length);
  }
  if (rest.startsWith('dB')) return { value: 10 ** (value / 20), rest: rest.slice(2) };
  const prefix = rest[0] !== undefined && Object.hasOwn(SI, rest[0]) ? SI[rest[0]] : undefined;
  if (prefix) {
    if (rest[1] === 'i') {
      value *= prefix[0];
      rest = rest.slice(2);
    } else {
      value *= prefix[1];
      rest = rest.slice(1);
    }
  }
  if (rest.startsWith('B')) {
    value *= 8;
    rest = rest.slice(1);
  }
  return { value, rest };
}

/** The whole text as one av_strtod number (ffmpeg's parse_number_or_die), or undefined. */
export function strtodWhole(text: string): number | undefined {
  const r = parseStrtod(text.trim());
  return r && r.rest === '' && Number.isFinite(r.value) ? r.value : undefined;
}
