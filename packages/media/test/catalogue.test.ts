// Every entry of the FFmpeg build in use is judged: the catalogue holds what the build offers, and
// the policy has a verdict for each filter, encoder, decoder, muxer, demuxer and bitstream filter,
// and for each string option of the entries it allows. A new FFmpeg build fails here until its
// new entries are judged (npm run catalogue, then src/policy/verdicts).
import { execFileSync } from 'node:child_process';
import { CATALOGUE } from '../src/policy/catalogue/catalogue.js';
import { CLI_OPTIONS } from '../src/policy/verdicts/cli-options.js';
import { SHARED_OPTION_VERDICTS, VERDICTS, type EntryKind } from '../src/policy/verdicts/index.js';

const listing = (flag: string) => execFileSync('ffmpeg', ['-hide_banner', flag], { encoding: 'utf8' }).split('\n');

/** Names from `ffmpeg -filters` and friends: the first word after the capability letters. */
function buildNames(flag: string, header: RegExp): string[] {
  const lines = listing(flag);
  const start = lines.findIndex((l) => header.test(l));
  return lines
    .slice(start + 1)
    .map((l) => /^\s*\S+\s+(\S+)/.exec(l)?.[1])
    .filter((n): n is string => n !== undefined);
}

const TABLES: Array<[EntryKind, keyof typeof CATALOGUE & ('filters' | 'encoders' | 'decoders' | 'muxers' | 'demuxers' | 'bsfs')]> = [
  ['filter', 'filters'],
  ['encoder', 'encoders'],
  ['decoder', 'decoders'],
  ['muxer', 'muxers'],
  ['demuxer', 'demuxers'],
  ['bsf', 'bsfs'],
];

describe('the catalogue is the FFmpeg build in use', () => {
  test.each([
    ['filters', '-filters', /^\s*\| = Source or sink/],
    ['encoders', '-encoders', /^\s*-{6}$/],
    ['decoders', '-decoders', /^\s*-{6}$/],
    ['muxers', '-muxers', /^\s*--$/],
    ['demuxers', '-demuxers', /^\s*--$/],
  ] as const)('every entry of ffmpeg %s is in it', (key, flag, header) => {
    const names = buildNames(flag, header);
    expect(names.length).toBeGreaterThan(30);
    expect(names.filter((n) => !Object.hasOwn(CATALOGUE[key], n))).toEqual([]);
  });

  test('every bitstream filter of ffmpeg -bsfs is in it', () => {
    const names = listing('-bsfs')
      .slice(1)
      .map((l) => l.trim())
      .filter(Boolean);
    expect(names.filter((n) => !Object.hasOwn(CATALOGUE.bsfs, n))).toEqual([]);
  });

  test('it was made from this build', () => {
    expect(execFileSync('ffmpeg', ['-hide_banner', '-version'], { encoding: 'utf8' }).split('\n')[0]).toContain(
      CATALOGUE.ffmpeg.replace('ffmpeg version ', ''),
    );
  });
});

describe('every entry is judged', () => {
  test.each(TABLES)('%s: a verdict for each catalogue entry, and none for anything else', (kind, key) => {
    const names = Object.keys(CATALOGUE[key]);
    const verdicts = VERDICTS[kind];
    expect(names.filter((n) => !Object.hasOwn(verdicts, n))).toEqual([]);
    expect(Object.keys(verdicts).filter((n) => !names.includes(n))).toEqual([]);
  });

  test.each(TABLES)('%s: every string, dict or binary option of an allowed entry is judged, and only real options are', (kind, key) => {
    const unjudged: string[] = [];
    const unknown: string[] = [];
    for (const [name, v] of Object.entries(VERDICTS[kind])) {
      if (v.verdict !== 'allow') continue;
      const options = (CATALOGUE[key] as Record<string, { options: Array<{ name: string; type: string; alias_of?: string }> }>)[name]!
        .options;
      const judged = v.options ?? {};
      for (const o of options) {
        const stringy = o.type === 'string' || o.type === 'dict' || o.type === 'binary';
        if (stringy && !Object.hasOwn(judged, o.name) && !(o.alias_of && Object.hasOwn(judged, o.alias_of)))
          unjudged.push(`${name}.${o.name}`);
      }
      for (const k of Object.keys(judged)) if (!options.some((o) => o.name === k)) unknown.push(`${name}.${k}`);
    }
    expect(unjudged).toEqual([]);
    expect(unknown).toEqual([]);
  });

  test('the shared option tables: string options judged, only real options named', () => {
    for (const [table, judged] of Object.entries(SHARED_OPTION_VERDICTS)) {
      const options = CATALOGUE.shared[table as keyof typeof CATALOGUE.shared];
      const stringy = options.filter(
        (o) =>
          ['string', 'dict', 'binary'].includes(o.type) &&
          !Object.hasOwn(judged, o.name) &&
          !(o.alias_of && Object.hasOwn(judged, o.alias_of)),
      );
      expect({ table, unjudged: stringy.map((o) => o.name) }).toEqual({ table, unjudged: [] });
      expect({ table, unknown: Object.keys(judged).filter((k) => !options.some((o) => o.name === k)) }).toEqual({ table, unknown: [] });
    }
  });

  test("every option of ffmpeg's command line (ffmpeg -h full) is judged", () => {
    const judged = new Set(CLI_OPTIONS.map((o) => o.name));
    expect(Object.keys(CATALOGUE.cli).filter((n) => !judged.has(n))).toEqual([]);
  });
});
