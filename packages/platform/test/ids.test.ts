// Ids and keys come from a pooled CSPRNG: right shape, every letter about equally likely (no
// modulo bias), no repeats across many pool refills.
import { ALNUM, LOWER_ALNUM, newId, randomString } from '../src/ids.js';

test('ids have the prefix and length, in the alphabet', () => {
  expect(newId('job_')).toMatch(/^job_[a-z0-9]{20}$/);
  expect(randomString(40, ALNUM)).toMatch(/^[A-Za-z0-9]{40}$/);
});

test.each([
  ['lower-case', LOWER_ALNUM],
  ['mixed-case', ALNUM],
])('every %s character is about equally likely', (_name, alphabet) => {
  const counts = new Map<string, number>();
  const total = 1_200_000; // 5% is then over 6 standard deviations per character
  for (const ch of randomString(total, alphabet)) counts.set(ch, (counts.get(ch) ?? 0) + 1);
  expect(counts.size).toBe(alphabet.length);
  const expected = total / alphabet.length;
  for (const n of counts.values()) expect(Math.abs(n - expected) / expected).toBeLessThan(0.05);
});

test('no repeats across many pool refills', () => {
  const ids = new Set(Array.from({ length: 20_000 }, () => newId('req_')));
  expect(ids.size).toBe(20_000);
});
