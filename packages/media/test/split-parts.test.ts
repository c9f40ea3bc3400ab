// planParts: where a split run cuts the video (pure: packets in, parts out).
import { planParts, type VideoPacket } from '../src/ffmpeg/index.js';

/** `seconds` of video at `fps` with a keyframe every `gop` frames, starting at `start`. */
function packets(seconds: number, fps: number, gop: number, start = 0): VideoPacket[] {
  return Array.from({ length: Math.round(seconds * fps) }, (_, n) => ({ pts: start + n / fps, key: n % gop === 0 }));
}

const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

describe('planParts', () => {
  it('cuts at keyframes into parts of about the target length, covering every frame once', () => {
    const p = packets(60, 25, 50); // keyframes every 2 s
    const plan = planParts(p, 10);
    if (!plan.parts) throw new Error(plan.reason);
    expect(plan.parts.map((x) => x.startSec)).toEqual([0, 10, 20, 30, 40, 50]);
    expect(plan.parts.map((x) => x.frames)).toEqual([250, 250, 250, 250, 250, 250]);
    expect(plan.parts.at(-1)!.endSec).toBeCloseTo(60, 9);
  });

  it('moves each cut to the nearest keyframe and lets the last part absorb the tail', () => {
    const p = packets(47, 25, 75); // keyframes every 3 s
    const plan = planParts(p, 10);
    if (!plan.parts) throw new Error(plan.reason);
    // 47 s makes 4 parts of 11.75 s; the cuts go to the keyframes nearest 11.75, 23.5 and 35.25.
    expect(plan.parts.map((x) => x.startSec)).toEqual([0, 12, 24, 36]);
    expect(sum(plan.parts.map((x) => x.frames))).toBe(p.length);
    for (const part of plan.parts) expect(p.find((x) => x.pts === part.startSec)?.key).toBe(true);
    for (const [k, part] of plan.parts.slice(1).entries()) expect(part.startSec).toBe(plan.parts[k]!.endSec);
  });

  it('never makes a part shorter than the GOP between two keyframes', () => {
    const p = packets(40, 25, 250); // keyframes every 10 s; parts of 3 s asked for
    const plan = planParts(p, 3);
    if (!plan.parts) throw new Error(plan.reason);
    expect(plan.parts.map((x) => x.startSec)).toEqual([0, 10, 20, 30]);
    expect(plan.parts.map((x) => x.frames)).toEqual([250, 250, 250, 250]);
  });

  it('counts frames by pts, whatever order the packets come in (B-frames)', () => {
    const p = packets(20, 25, 50, 0.08);
    const decodeOrder = p.map((_, n) => p[n % 3 === 1 && n + 1 < p.length ? n + 1 : n % 3 === 2 ? n - 1 : n]!);
    const plan = planParts(decodeOrder, 5);
    if (!plan.parts) throw new Error(plan.reason);
    expect(plan.parts[0]!.startSec).toBeCloseTo(0.08, 9);
    expect(sum(plan.parts.map((x) => x.frames))).toBe(p.length);
  });

  it('takes milliseconds rounding (Matroska) as a constant rate', () => {
    const p = packets(31, 30000 / 1001, 60).map((x) => ({ ...x, pts: Math.round(x.pts * 1000) / 1000 }));
    expect(planParts(p, 10).parts).toHaveLength(3);
  });

  it.each([
    ['a single keyframe', packets(60, 25, 100_000), 'the video has too few keyframes'],
    ['a video shorter than two parts', packets(15, 25, 25), 'the video is shorter than 2 parts of 10 s'],
    [
      'frames unevenly spaced',
      packets(60, 25, 50).map((x, n) => ({ ...x, pts: x.pts + (n % 2) * 0.015 })),
      'the video has a variable frame rate',
    ],
    ['no keyframe first', packets(60, 25, 50).map((x, n) => ({ ...x, key: n % 50 === 10 })), 'the video does not start with a keyframe'],
    ['one frame', packets(1, 1, 1), 'the video has fewer than 2 frames'],
  ])('says why it does not split %s', (_, p, reason) => {
    expect(planParts(p, 10)).toEqual({ parts: null, reason });
  });
});
