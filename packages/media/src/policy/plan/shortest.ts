// When -shortest bounds an output. ffmpeg ends such an output when its shortest stream ends, so
// it is a bound only if one of the output's streams ends by itself: `[0:a]aloop=loop=-1[a]` with
// `-map [a] -shortest` has one stream, endless, and ran until the job time limit (issue 39).
// An output with -map is judged here, at planning. One without -map takes the streams ffmpeg picks
// itself (the best video, the best audio of all inputs), which only the probe of the inputs can
// tell: planning notes what to check (PlannedOutput.shortest) and checkShortestStreams checks it
// once the inputs are staged, before ffmpeg starts.
import { refuse, show } from '../refuse.js';
import { specifierMedia } from '../stream-spec.js';
import type { StreamEnd } from './finiteness.js';
import type { OutputFacts } from './outputs.js';
import type { PlannedInput, ShortestCheck } from './types.js';

type Media = 'video' | 'audio';
const MEDIA: readonly Media[] = ['video', 'audio'];

/** What the planner knows of one output whose only bound is -shortest and which has an endless stream. */
export interface ShortestFacts {
  output: string;
  facts: OutputFacts;
  inputs: readonly PlannedInput[];
  labels: ReadonlyMap<string, StreamEnd>;
  /** The task's complex graphs' unlabelled outputs, when they go to this output (the first). */
  unlabelled: readonly StreamEnd[];
  /** Types a simple graph of the output (-vf, -af) makes endless by itself (loop=-1, apad). */
  endlessGraphTypes: ReadonlySet<Media>;
  /** Why the output may never end (the first endless stream's cause). */
  cause: string;
}

const shortestRefusal = (output: string, cause: string, which: string, instead: string): never =>
  refuse(
    `Output ${show(output)} would never end: -shortest ends it when its shortest stream ends, but ${which} play without end (${cause}). Bound it: add -t <seconds> to its options, or ${instead}`,
  );

/**
 * Returns null when -shortest bounds the output, what to check after the probe for an output
 * without -map, or refuses with a sentence saying how to bound it.
 */
export function shortestBound(f: ShortestFacts): ShortestCheck | null {
  const { facts, inputs } = f;
  const finiteInput = (n: number) => inputs[n] !== undefined && inputs[n].kind !== 'side' && !inputs[n].endless;
  if (facts.maps.length > 0) {
    for (const m of facts.maps) {
      if ('label' in m) {
        if (f.labels.get(m.label)?.endless === false) return null;
        continue;
      }
      // 1:a? may select nothing, and -map -1:a may take the stream out again.
      if (m.optional || facts.unmapped.includes(m.input) || !finiteInput(m.input)) continue;
      const media = m.spec === null ? undefined : specifierMedia(m.spec);
      if (media === 'subtitle') continue;
      const filtered = media ? f.endlessGraphTypes.has(media) : f.endlessGraphTypes.size > 0;
      if (!filtered) return null;
    }
    return shortestRefusal(
      f.output,
      f.cause,
      'all the streams it maps',
      'also map a stream that ends, such as the audio of a file that is not looped (-map 1:a)',
    );
  }
  if (f.unlabelled.some((s) => !s.endless)) return null;
  const excluded = new Set<Media>([...facts.dropped, ...f.endlessGraphTypes]);
  for (const s of f.unlabelled) for (const t of s.media ? [s.media] : MEDIA) excluded.add(t);
  const open = MEDIA.filter((t) => !excluded.has(t));
  const media = inputs.filter((i) => i.kind !== 'side');
  if (open.length === 0 || media.every((i) => i.endless)) {
    return shortestRefusal(f.output, f.cause, 'the streams ffmpeg picks for it', 'name a stream that ends with -map (such as -map 1:a)');
  }
  return { endlessInputs: media.filter((i) => i.endless).map((i) => i.index), types: open, cause: f.cause };
}

/** The media inputs as the runner opens them: each one's stream types (from the probe) and options. */
export interface OpenedInput {
  args: readonly string[];
  /** Stream types the probe found (video, audio, ...); unknown: the input could hold any. */
  streams?: readonly string[];
}

/**
 * After the probe, for outputs without -map whose only bound is -shortest: ffmpeg picks the best
 * video and the best audio of all inputs, so -shortest bounds the output if, for one of the
 * types it may pick, no endless input has a stream of it and some other input has.
 */
export function checkShortestStreams(
  outputs: ReadonlyArray<{ fileName: string; shortest?: ShortestCheck }>,
  inputs: readonly OpenedInput[],
): void {
  const has = (i: number, t: Media, endless: boolean): boolean => {
    const input = inputs[i]!;
    if (input.args.includes(t === 'video' ? '-vn' : '-an')) return false;
    return input.streams ? input.streams.includes(t) : endless;
  };
  for (const o of outputs) {
    const check = o.shortest;
    if (!check) continue;
    const endless = (i: number) => check.endlessInputs.includes(i);
    const ends = check.types.some(
      (t) => inputs.every((_, i) => !endless(i) || !has(i, t, true)) && inputs.some((_, i) => !endless(i) && has(i, t, false)),
    );
    if (!ends) {
      shortestRefusal(
        o.fileName,
        check.cause,
        'the streams ffmpeg picks for it (it has no -map)',
        'name a stream that ends with -map (such as -map 1:a)',
      );
    }
  }
}
