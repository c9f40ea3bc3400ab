// The published policy cannot drift from the code: packages/media/policy/ffmpeg-policy.json must
// equal policyDocument(), and the reference part of docs/ffmpeg-policy.md must equal its rendering.
// Regenerate both with:
//   UPDATE_POLICY_JSON=1 NODE_OPTIONS=--experimental-vm-modules npx jest packages/media/test/policy-document
import { readFileSync, writeFileSync } from 'node:fs';
import { policyDocument } from '../src/policy/index.js';
import { BEGIN, END, renderReference } from './policy-doc-render.js';

const JSON_FILE = new URL('../policy/ffmpeg-policy.json', import.meta.url);
const DOC_FILE = new URL('../../../docs/ffmpeg-policy.md', import.meta.url);
const UPDATE = process.env.UPDATE_POLICY_JSON === '1';

const expected = policyDocument();
const serialized = `${JSON.stringify(expected, null, 2)}\n`;
const reference = renderReference(expected);

function generatedPart(doc: string): string {
  const start = doc.indexOf(BEGIN);
  const end = doc.indexOf(END);
  return start < 0 || end < start ? '' : doc.slice(start, end + END.length);
}

if (UPDATE) {
  writeFileSync(JSON_FILE, serialized);
  const doc = readFileSync(DOC_FILE, 'utf8');
  const old = generatedPart(doc);
  if (old === '') throw new Error(`${DOC_FILE.pathname} has no generated-section markers`);
  writeFileSync(DOC_FILE, doc.replace(old, reference));
}

describe('ffmpeg-policy.json', () => {
  test('equals the policy the code enforces', () => {
    const committed: unknown = JSON.parse(readFileSync(JSON_FILE, 'utf8'));
    expect(committed).toEqual(JSON.parse(serialized));
  });

  test('is formatted as generated', () => {
    expect(readFileSync(JSON_FILE, 'utf8')).toBe(serialized);
  });
});

describe('docs/ffmpeg-policy.md', () => {
  const doc = readFileSync(DOC_FILE, 'utf8');

  test('its reference tables are the code tables', () => {
    expect(generatedPart(doc)).toBe(reference);
  });

  test('names every refused entry and every refused command-line option, with its reason', () => {
    const refused = [
      ...expected.commandLineOptions.filter((o) => o.status === 'refused').map((o) => o.option),
      ...[expected.filters, expected.encoders, expected.decoders, expected.muxers, expected.demuxers, expected.bitstreamFilters].flatMap(
        (t) =>
          Object.entries(t)
            .filter(([, e]) => typeof e === 'object' && (e as { verdict: string }).verdict === 'refuse')
            .map(([k]) => k),
      ),
    ];
    expect(refused.length).toBeGreaterThan(50);
    expect(refused.filter((name) => !doc.includes(`\`${name.replace(/\|/g, '\\|')}\``))).toEqual([]);
  });

  test('every entry of the build has a verdict in the JSON', () => {
    for (const t of [
      expected.filters,
      expected.encoders,
      expected.decoders,
      expected.muxers,
      expected.demuxers,
      expected.bitstreamFilters,
    ]) {
      expect(Object.values(t).filter((e) => e === 'unjudged')).toEqual([]);
    }
  });

  test('the prose states the spec limits', () => {
    const prose = doc.replace(generatedPart(doc), '');
    for (const v of [100, 50, 400, 8192, 32768, 1000]) expect(prose).toContain(v.toLocaleString('en-US'));
  });
});
