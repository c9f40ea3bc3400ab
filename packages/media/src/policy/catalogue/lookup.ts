// Questions the policy asks of the catalogue: which muxer an output name selects, which encoder a
// codec name means, which demuxer a -f name opens, and the option tables that apply to each.
import { CATALOGUE } from './catalogue.js';
import type { AvOption, CatalogueCodec, CatalogueFormat, CatalogueMuxer, MediaKind } from './types.js';

export type StreamType = 'video' | 'audio' | 'subtitle' | 'data';

/** The muxer ffmpeg picks for an output file name by its extension, if any. */
export function muxerForExtension(ext: string): string | undefined {
  return Object.hasOwn(CATALOGUE.extension_muxers, ext) ? CATALOGUE.extension_muxers[ext]!.muxer : undefined;
}

export function muxer(name: string): CatalogueMuxer | undefined {
  return Object.hasOwn(CATALOGUE.muxers, name) ? CATALOGUE.muxers[name] : undefined;
}

// A format answers to each name of its comma list (-f mp4 opens 'mov,mp4,m4a,3gp,3g2,mj2';
// -f ssegment writes with 'stream_segment,ssegment'), as ffmpeg's av_match_name does.
function byShortName(table: Record<string, unknown>): (name: string) => string | undefined {
  const byShort = new Map<string, string>();
  for (const full of Object.keys(table)) for (const part of full.split(',')) if (!byShort.has(part)) byShort.set(part, full);
  return (name) => (Object.hasOwn(table, name) ? name : byShort.get(name));
}

/** The demuxer's full catalogue name for a -f name or full name. */
export const demuxerName = byShortName(CATALOGUE.demuxers);

/** The muxer's full catalogue name for a -f name or full name. */
export const muxerName = byShortName(CATALOGUE.muxers);

export function demuxer(fullName: string): CatalogueFormat | undefined {
  return Object.hasOwn(CATALOGUE.demuxers, fullName) ? CATALOGUE.demuxers[fullName] : undefined;
}

/**
 * The encoder (or decoder) a -c value selects: one of that name, else the one ffmpeg uses for a
 * codec of that name (-c:v h264 is libx264), as find_codec_or_die does.
 */
export function codecFor(kind: 'encoder' | 'decoder', name: string): { name: string; codec: CatalogueCodec } | undefined {
  const table = kind === 'encoder' ? CATALOGUE.encoders : CATALOGUE.decoders;
  if (Object.hasOwn(table, name)) return { name, codec: table[name]! };
  const desc = Object.hasOwn(CATALOGUE.codecs, name) ? CATALOGUE.codecs[name]! : undefined;
  const chosen = desc?.[kind];
  return chosen && Object.hasOwn(table, chosen) ? { name: chosen, codec: table[chosen]! } : undefined;
}

/** The encoder ffmpeg uses for a stream type of an output when the task names none. */
export function defaultEncoder(muxerName: string, ext: string, type: 'video' | 'audio' | 'subtitle'): string | undefined {
  const m = muxer(muxerName);
  if (!m) return undefined;
  // image2 and friends choose the codec from the file name (thumb.jpg: mjpeg).
  if (type === 'video' && Object.hasOwn(CATALOGUE.extension_muxers, ext) && CATALOGUE.extension_muxers[ext]!.muxer === muxerName) {
    const byExt = CATALOGUE.extension_muxers[ext]!.video_encoder;
    if (byExt) return byExt;
  }
  return m[`${type}_encoder`] ?? undefined;
}

export function streamTypeOf(kind: MediaKind): StreamType | undefined {
  return kind === 'video' || kind === 'audio' || kind === 'subtitle' || kind === 'data' ? kind : undefined;
}

/** An option of a table by name (aliases are options of their own in the catalogue). */
export function findOption(options: readonly AvOption[], name: string): AvOption | undefined {
  return options.find((o) => o.name === name);
}
