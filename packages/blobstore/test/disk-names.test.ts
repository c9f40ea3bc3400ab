import { decodeSegment, encodeKey, encodeSegment } from '../src/disk-names.js';

const decode = (components: string[]) => decodeSegment(components.map((c) => c.replace(/^~/, '')).join(''));

describe('on-disk names', () => {
  it('keeps plain names readable and escapes the rest', () => {
    expect(encodeKey('acc_x/dir_y/video-1.mp4')).toEqual(['acc_x', 'dir_y', 'video-1.mp4']);
    expect(encodeSegment('Video.MP4')).toEqual(['^video.^m^p4']);
    expect(encodeSegment('.hidden')).toEqual(['%2Ehidden']);
    expect(encodeSegment('a b/ü')).toEqual(['a%20b%2F%C3%BC']);
  });

  const tricky = [
    'a',
    'A',
    '^a',
    '%41',
    '%2E',
    '.a',
    '~a',
    '..a',
    'a..',
    ' ',
    '%',
    '^',
    '~',
    'ü',
    'Ü',
    '🎬',
    'CON',
    'x'.repeat(255),
    '文'.repeat(255),
    '🎬'.repeat(255),
    'aé'.repeat(120),
  ];

  it('round-trips every segment, chunking long ones into ~-prefixed directories', () => {
    for (const segment of tricky) {
      const parts = encodeSegment(segment);
      expect(decode(parts)).toBe(segment);
      parts.forEach((part, i) => {
        expect(part.length).toBeLessThanOrEqual(201); // a name of at most 255 bytes
        expect(part).toMatch(/^[a-z0-9_.%^~A-F-]+$/);
        expect(part.startsWith('.')).toBe(false); // never hidden, ".", ".."
        expect(part.startsWith('~')).toBe(i < parts.length - 1);
      });
    }
    expect(encodeSegment('文'.repeat(255)).length).toBeGreaterThan(1);
  });

  it('never maps two segments to names equal on a case-insensitive file system', () => {
    const seen = new Map<string, string>();
    for (const segment of tricky) {
      const folded = encodeSegment(segment).join('/').toLowerCase();
      expect(seen.get(folded) ?? segment).toBe(segment);
      seen.set(folded, segment);
    }
  });

  it('decodes only names it produces', () => {
    for (const stray of ['.tmp', 'UPPER', 'a b', '%zz', '%c3', '^A']) expect(decodeSegment(stray)).toBeNull();
  });
});
