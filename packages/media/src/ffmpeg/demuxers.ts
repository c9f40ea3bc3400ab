// The input demuxers ffmpeg may use, from the policy's verdicts on the FFmpeg catalogue. An upload
// is only ever opened with a demuxer the probe found among the allowed ones, forced with `-f`, and
// `-format_whitelist` limits every nested demuxer to that same one. The demuxers that read lists
// of other files or URLs (hls, dash, sdp, imf, ...), devices, and the text-art ones are refused
// by their verdicts; concat and image2 are allowed only where the service itself sets them up
// (uploaded concat lists it rewrote, image sequences it staged, generated inputs' checked graphs),
// never by detection.
import { CATALOGUE, entryVerdict } from '../policy/index.js';
import { demuxerName } from '../policy/catalogue/lookup.js';

/** One allowed demuxer: `name` is what `-f` takes; `names` is ffmpeg's full comma list. */
export interface AllowedDemuxer {
  name: string;
  names: string;
  /** Demuxer private options pinned on every open (safe values, even where they are the default). */
  pinned: readonly string[];
}

/** Allowed only where the service builds the input itself: never chosen by detecting an upload. */
export const SERVICE_BUILT_DEMUXERS: ReadonlySet<string> = new Set(['concat', 'image2', 'lavfi']);

function describe(full: string): AllowedDemuxer | undefined {
  const verdict = entryVerdict('demuxer', full);
  if (verdict?.verdict !== 'allow') return undefined;
  const pinned = Object.entries(verdict.options ?? {}).flatMap(([opt, v]) =>
    typeof v === 'object' && 'pinned' in v ? [`-${opt}`, v.pinned] : [],
  );
  return { name: full.split(',')[0]!, names: full, pinned };
}

/** Every allowed demuxer, keyed by its full name. */
export const ALLOWED_DEMUXERS: readonly AllowedDemuxer[] = Object.keys(CATALOGUE.demuxers).flatMap((full) => describe(full) ?? []);

/** Every demuxer detection may choose, comma-joined: the `-format_whitelist` of an upload of unknown type. */
export const PROBE_FORMAT_WHITELIST = ALLOWED_DEMUXERS.filter((d) => !SERVICE_BUILT_DEMUXERS.has(d.name))
  .map((d) => d.names)
  .join(',');

/**
 * The allowed demuxer for a name: a `-f` name ("mov", "mp4"), or ffprobe's full `format_name`
 * ("mov,mp4,m4a,3gp,3g2,mj2").
 */
export function allowedDemuxer(name: string): AllowedDemuxer | undefined {
  const full = demuxerName(name) ?? demuxerName(name.split(',')[0]!);
  return full ? describe(full) : undefined;
}

/**
 * Why a stream with this codec makes an input unacceptable, or null: its decoder is refused (the
 * text-art decoders that would show whatever bytes a demuxer read, hardware-only codecs).
 */
export function refusedStreamCodec(codec: string): string | null {
  const desc = Object.hasOwn(CATALOGUE.codecs, codec) ? CATALOGUE.codecs[codec] : undefined;
  const decoder = desc?.decoder;
  if (!decoder) return null;
  const verdict = entryVerdict('decoder', decoder);
  return verdict?.verdict === 'refuse' ? verdict.reason : null;
}
