// The output options of a split run's two kinds of ffmpeg runs, derived from the task's one
// output: a part encodes the video alone into the intermediate container; the join copies the
// parts' video and does everything else (audio, subtitles, metadata, the muxer) as the bare run.
import { CATALOGUE } from '../../policy/catalogue/catalogue.js';
import { codecFor } from '../../policy/catalogue/lookup.js';
import { tokenizeOptions, type RawOption } from '../../policy/options/read-options.js';
import { specifierMedia } from '../../policy/stream-spec.js';

/** Matroska takes every video codec with its global header and B-frame timing, and concatenates by stream copy. */
export const PART_MUXER = 'matroska';
export const PART_DEMUXERS = 'matroska,webm';

/** Options only the final file needs (the join applies them once): container fields and packet filters. */
const FINAL_ONLY = new Set(['f', 'metadata', 'map_metadata', 'map_chapters', 'disposition', 'tag', 'bsf', 'program', 'streamid', 'attach']);

/** ffmpeg's option sections (`ffmpeg -h full`) of an option, by its written and its resolved name. */
function sections(o: RawOption): string[] {
  const written = o.token.slice(1).split(':')[0]!;
  return [...(CATALOGUE.cli[written] ?? []), ...(CATALOGUE.cli[o.name] ?? [])];
}

const isFormatOption = (name: string) =>
  CATALOGUE.shared.AVFormatContext.some((x) => x.name === name && x.flags.includes('E')) ||
  Object.values(CATALOGUE.muxers).some((m) => m.options.some((x) => x.name === name));
const isCodecOption = (name: string) =>
  CATALOGUE.shared.AVCodecContext.some((x) => x.name === name && x.flags.includes('E')) ||
  Object.values(CATALOGUE.encoders).some((e) => e.options.some((x) => x.name === name));

/** The stream type an option is limited to by its specifier or its section, if any. */
function mediaOf(o: RawOption): 'video' | 'audio' | 'subtitle' | 'data' | undefined {
  const bySpec = o.spec === null ? undefined : specifierMedia(o.spec);
  if (bySpec) return bySpec;
  if (o.spec !== null && /^d/.test(o.spec)) return 'data';
  const s = sections(o);
  if (s.length === 0) return undefined;
  if (s.every((x) => x.includes('Video'))) return 'video';
  if (s.every((x) => x.includes('Audio'))) return 'audio';
  if (s.every((x) => x.includes('Subtitle'))) return 'subtitle';
  return undefined;
}

/** The options as written, with each -map's value passed through `map` (undefined: left out). */
function emit(options: readonly RawOption[], args: readonly string[], map: (value: string) => string | undefined = (v) => v): string[] {
  return options.flatMap((o) => {
    if (o.value === undefined) return [args[o.at]!];
    if (o.cli && o.name === 'map') {
      const value = map(o.value);
      return value === undefined ? [] : [args[o.at]!, value];
    }
    return [args[o.at]!, o.value];
  });
}

/** A -map of one input's streams: input, specifier (may be empty), optional '?'. */
interface StreamMap {
  input: number;
  spec: string;
  optional: boolean;
}

function readMap(value: string): StreamMap | undefined {
  const m = /^(\d+)(?::([^?]*))?(\??)$/.exec(value);
  return m ? { input: Number(m[1]), spec: m[2] ?? '', optional: m[3] === '?' } : undefined;
}

const writeMap = (m: StreamMap) => `${m.input}${m.spec ? `:${m.spec}` : ''}${m.optional ? '?' : ''}`;
const mapsVideo = (m: StreamMap) => /^[vV](?::\d+)?$/.test(m.spec);

/**
 * Why the task's -map options cannot be split, if they cannot: the split input's streams must be
 * mapped by type (0:v, 0:a:0?...), so that its video can be told apart and swapped for the parts'.
 */
export function mapProblem(args: readonly string[], splitInput: number): string | undefined {
  const maps = tokenizeOptions(args, 'output options').filter((o) => o.cli && o.name === 'map');
  if (maps.length === 0) return undefined;
  let video = false;
  for (const o of maps) {
    const m = readMap(o.value ?? '');
    if (!m) return `the output map ${o.value} is not split`;
    if (m.input !== splitInput) continue;
    if (mapsVideo(m)) video = true;
    else if (!/^[asdt](?::\d+)?$/.test(m.spec)) return `the output map ${o.value} is not split (map the input's streams by type)`;
  }
  return video ? undefined : 'the output maps no video of the split input';
}

/**
 * A part's output options: the task's video and general encoding options, without the muxer's
 * and the other streams', then no audio, subtitles or data, the part's frame count, and the
 * intermediate container.
 */
export function partArgs(args: readonly string[], frames: number | undefined, splitInput = 0): string[] {
  const kept = tokenizeOptions(args, 'output options').filter((o) => {
    if (o.cli) return !FINAL_ONLY.has(o.name) && (mediaOf(o) ?? 'video') === 'video';
    // An AVOption: a muxer's is left out; a codec's stays (an audio encoder's is unused with -an).
    return isCodecOption(o.name) || !isFormatOption(o.name);
  });
  // A part opens the split input alone (as input 0): only maps of its video stay.
  const video = emit(kept, args, (value) => {
    const m = readMap(value);
    return m && m.input === splitInput && mapsVideo(m) ? writeMap({ ...m, input: 0 }) : undefined;
  });
  const end = frames === undefined ? [] : ['-frames:v', String(frames)];
  return [...video, '-an', '-sn', '-dn', ...end, '-f', PART_MUXER];
}

/**
 * The join's output options: the task's, without those that shape the video encode (the parts
 * did it), then the video copied. Options of no one stream type stay: they reach the audio
 * encoder as in the bare run (-b 128k).
 */
export function joinArgs(args: readonly string[], splitInput = 0, partsInput = 1): string[] {
  const options = tokenizeOptions(args, 'output options');
  const videoEncoder = videoEncoderOf(options);
  const kept = options.filter((o) => {
    if (o.cli) return o.name === 'tag' || o.name === 'bsf' || FINAL_ONLY.has(o.name) || mediaOf(o) !== 'video';
    if (o.spec !== null && specifierMedia(o.spec) === 'video') return false;
    // A private option of the video encoder has nothing to act on once the video is copied.
    return !(videoEncoder && CATALOGUE.encoders[videoEncoder]?.options.some((x) => x.name === o.name) && !sharedCodecOption(o.name));
  });
  // A map of the split input's video now takes the parts' (the parts' input has that one stream).
  const joined = emit(kept, args, (value) => {
    const m = readMap(value);
    return m && m.input === splitInput && mapsVideo(m) ? writeMap({ ...m, input: partsInput }) : value;
  });
  return [...joined, '-c:v', 'copy'];
}

const sharedCodecOption = (name: string) => CATALOGUE.shared.AVCodecContext.some((x) => x.name === name);

/** The encoder the task's -c:v (or -c) names. */
function videoEncoderOf(options: readonly RawOption[]): string | undefined {
  const c = [...options].reverse().find((o) => o.cli && o.name === 'c' && (o.spec === null || specifierMedia(o.spec) === 'video'));
  return c?.value === undefined ? undefined : codecFor('encoder', c.value)?.name;
}

/** Output options that set the frame rate or its mode themselves: such a run is not split. */
export function frameRateOption(args: readonly string[]): string | undefined {
  return tokenizeOptions(args, 'output options').find((o) => o.cli && ['r', 'fps_mode', 'vsync'].includes(o.name))?.token;
}
