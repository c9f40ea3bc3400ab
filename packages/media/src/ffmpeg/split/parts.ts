// Where a split run cuts the video: at keyframes of the input, into parts of about equal length.
// Pure, so the choice is tested without ffmpeg (test/split-parts.test.ts).

/** One packet of the split video stream, as ffprobe lists it. */
export interface VideoPacket {
  /** Presentation time in seconds. */
  pts: number;
  key: boolean;
}

/** One part of the video: the frames with pts in [startSec, endSec). */
export interface Part {
  /** A keyframe's pts (the first part: the first frame's). */
  startSec: number;
  /** The next part's start; for the last part the end of the last frame. */
  endSec: number;
  /** How many frames the part holds (what its encode is limited to). */
  frames: number;
}

export type PartsPlan = { parts: Part[] /** The video's frame duration. */; frameSec: number } | { parts: null; reason: string };

/**
 * Parts of about `partSec` seconds: the video's length is cut into floor(length / partSec) equal
 * spans (so the last part absorbs the tail and no part is much shorter than partSec), and each cut
 * moves to the keyframe nearest to it. A part always runs from one keyframe to a later one, so it
 * is never shorter than the GOP between them. The frame rate must be constant: the parts'
 * timestamps are joined by their spans, which only adds up to the bare run's for evenly spaced frames.
 */
export function planParts(packets: readonly VideoPacket[], partSec: number): PartsPlan {
  if (!(partSec > 0)) throw new RangeError('partSec must be positive');
  if (packets.length < 2) return { parts: null, reason: 'the video has fewer than 2 frames' };
  const sorted = [...packets].sort((a, b) => a.pts - b.pts);
  const frameSec = constantFrameDuration(sorted);
  if (frameSec === undefined) return { parts: null, reason: 'the video has a variable frame rate' };
  if (!sorted[0]!.key) return { parts: null, reason: 'the video does not start with a keyframe' };
  const start = sorted[0]!.pts;
  const end = sorted[sorted.length - 1]!.pts + frameSec;
  const keyframes = sorted.filter((p) => p.key).map((p) => p.pts);
  const count = Math.floor((end - start) / partSec);
  const cuts: number[] = [];
  for (let j = 1; j < count; j++) {
    const target = start + ((end - start) * j) / count;
    const after = cuts.length > 0 ? cuts[cuts.length - 1]! : start;
    const nearest = nearestAfter(keyframes, target, after);
    if (nearest !== undefined) cuts.push(nearest);
  }
  if (cuts.length === 0) {
    const why = count < 2 ? `the video is shorter than 2 parts of ${partSec} s` : 'the video has too few keyframes';
    return { parts: null, reason: why };
  }
  const bounds = [start, ...cuts, end];
  const parts: Part[] = [];
  let i = 0;
  for (let k = 0; k + 1 < bounds.length; k++) {
    const from = bounds[k]!;
    const to = bounds[k + 1]!;
    let frames = 0;
    while (i < sorted.length && (k + 2 === bounds.length || sorted[i]!.pts < to)) {
      frames++;
      i++;
    }
    parts.push({ startSec: from, endSec: to, frames });
  }
  return { parts, frameSec };
}

/** The keyframe closest to `target` that lies after `after`, if any. */
function nearestAfter(keyframes: readonly number[], target: number, after: number): number | undefined {
  let best: number | undefined;
  for (const k of keyframes) {
    if (k <= after) continue;
    if (best === undefined || Math.abs(k - target) < Math.abs(best - target)) best = k;
  }
  return best;
}

/**
 * The frame duration when frames are evenly spaced, else undefined. Containers with a coarse
 * time base (Matroska's milliseconds) round each pts, so a step may differ by that rounding.
 */
export function constantFrameDuration(sorted: readonly VideoPacket[]): number | undefined {
  const steps = sorted.slice(1).map((p, k) => p.pts - sorted[k]!.pts);
  const frameSec = (sorted[sorted.length - 1]!.pts - sorted[0]!.pts) / steps.length;
  if (!(frameSec > 0)) return undefined;
  const tolerance = 0.0015 + frameSec * 0.01;
  return steps.every((d) => Math.abs(d - frameSec) <= tolerance) ? frameSec : undefined;
}
