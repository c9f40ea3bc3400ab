// The input demuxer allow-list. An upload is only ever opened with a demuxer from this list, forced
// with `-f`, and `-format_whitelist` limits every nested demuxer to that same one. Everything else
// is refused — above all the demuxers that read a *list of other files or URLs* (hls, dash,
// concat, sdp/rtp/rtsp, image2 patterns, ffmetadata, lavfi) and the ones that turn arbitrary text
// into pictures (tty, bin, xbin, idf, adf), which is how playlist tricks leak file contents.

/** One allowed demuxer: `name` is what `-f` takes; `names` is ffmpeg's full comma list. */
export interface AllowedDemuxer {
  name: string;
  names: string;
  /** Demuxer private options pinned on every open (safe values, even where they are the default). */
  pinned: readonly string[];
}

// The mov demuxer can follow "data references" to other files (`enable_drefs`, off by default)
// and resolve absolute alias paths (`use_absolute_path`): pin both off explicitly.
const MOV_PINNED = ['-enable_drefs', '0', '-use_absolute_path', '0'] as const;

/**
 * ffmpeg's full demuxer names (as ffprobe reports `format_name`). Older ffmpeg builds (the 4.1
 * npm fallback) use the same names for these. Deliberately left out: mxf (large, CVE-prone parser,
 * rarely uploaded), raw PCM/rawvideo (need caller-supplied parameters), and every demuxer of
 * references, devices, protocols or generated sources.
 */
const FULL_NAMES = [
  'mov,mp4,m4a,3gp,3g2,mj2',
  'matroska,webm',
  'avi',
  'flv',
  'mpegts',
  'mpeg',
  'ogg',
  'asf',
  'wav',
  'mp3',
  'flac',
  'aac',
  'ac3',
  'eac3',
  'aiff',
  'caf',
  'h264',
  'hevc',
  // Single still images (the *_pipe demuxers read exactly one file; `image2` expands patterns).
  'png_pipe',
  'jpeg_pipe',
  'webp_pipe',
  'bmp_pipe',
  'tiff_pipe',
  'gif',
  'gif_pipe',
  'apng',
  // Text subtitles: they only parse the upload itself (muxing subtitle tracks).
  'srt',
  'ass',
  'webvtt',
] as const;

const ALLOWED: ReadonlyMap<string, AllowedDemuxer> = new Map(
  FULL_NAMES.map((names) => {
    const name = names.split(',')[0]!;
    return [name, { name, names, pinned: name === 'mov' ? MOV_PINNED : [] }];
  }),
);

/** The allowed demuxers, keyed by their `-f` name. */
export const ALLOWED_DEMUXERS: readonly AllowedDemuxer[] = [...ALLOWED.values()];

/** Every allowed name, comma-joined: the `-format_whitelist` used while probing an unknown upload. */
export const PROBE_FORMAT_WHITELIST = FULL_NAMES.join(',');

/**
 * The allowed demuxer for a name: either a `-f` name ("mov") or ffprobe's full `format_name`
 * ("mov,mp4,m4a,3gp,3g2,mj2"). Any single alias ("mp4", "webm") also resolves.
 */
export function allowedDemuxer(name: string): AllowedDemuxer | undefined {
  const direct = ALLOWED.get(name);
  if (direct) return direct;
  const aliases = name.split(',');
  return ALLOWED_DEMUXERS.find((d) => d.names === name || d.names.split(',').some((n) => aliases.includes(n)));
}

/**
 * Codecs that render arbitrary bytes as text on a picture. A stream of these would show whatever a
 * demuxer read (the known exploit chains end with one), so an input carrying one is refused.
 */
export const TEXT_RENDERING_CODECS: ReadonlySet<string> = new Set(['ansi', 'bintext', 'xbin', 'idf']);
