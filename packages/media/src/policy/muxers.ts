// Output muxers. A muxer is either named with -f (must be in MUXERS) or inferred by ffmpeg from the
// file extension (must be in EXTENSION_MUXERS): a name like playlist.m3u8 would otherwise select
// the HLS muxer, which writes extra files and can send HTTP requests.

/** Muxers allowed with -f: each writes exactly one file and opens nothing else. */
export const MUXERS = [
  'mp4', 'mov', 'ipod', 'matroska', 'webm', 'mp3', 'wav', 'flac', 'ogg', 'oga', 'ogv', 'opus', 'adts', 'gif',
  'apng', 'webp', 'avi', 'mpegts', 'mpeg', '3gp', 'ac3', 'aiff', 'mp2', 'srt', 'webvtt', 'ass', 'mjpeg',
] as const;

/** Extension -> the muxer ffmpeg picks for it (checked with ffmpeg 5.1). */
export const EXTENSION_MUXERS: Readonly<Record<string, string>> = {
  mp4: 'mp4', m4v: 'ipod', m4a: 'ipod', mov: 'mov', mkv: 'matroska', mka: 'matroska', webm: 'webm',
  mp3: 'mp3', wav: 'wav', flac: 'flac', ogg: 'ogg', oga: 'oga', ogv: 'ogv', opus: 'opus', aac: 'adts',
  gif: 'gif', apng: 'apng', webp: 'webp', avi: 'avi', ts: 'mpegts', mpg: 'mpeg', mpeg: 'mpeg', '3gp': '3gp',
  ac3: 'ac3', aiff: 'aiff', aif: 'aiff', mp2: 'mp2', srt: 'srt', vtt: 'webvtt', ass: 'ass', mjpeg: 'mjpeg',
  // Single images and numbered image sequences (image2 muxer; never selectable with -f).
  png: 'image2', jpg: 'image2', jpeg: 'image2', bmp: 'image2', tif: 'image2', tiff: 'image2',
};

/** Extensions whose muxer (image2) expands a numbered pattern into one file per frame. */
export const IMAGE_SEQUENCE_EXTENSIONS = ['png', 'jpg', 'jpeg', 'bmp', 'tif', 'tiff'] as const;

/** Muxers refused with -f, with the reason given in the error. */
export const REFUSED_MUXERS: Readonly<Record<string, string>> = {
  image2: 'numbered image outputs choose it from the file extension (thumb_%03d.png)',
  image2pipe: 'it writes to a pipe',
  tee: 'it writes to further files or URLs',
  segment: 'it writes further files',
  ssegment: 'it writes further files',
  stream_segment: 'it writes further files',
  hls: 'it writes playlists and segment files and can send HTTP requests',
  dash: 'it writes manifests and segment files and can send HTTP requests',
  hds: 'it writes further files',
  smoothstreaming: 'it writes further files',
  webm_chunk: 'it writes further files',
  webm_dash_manifest: 'it reads other files',
  fifo: 'it wraps another muxer',
  rtp: 'it sends network traffic',
  rtp_mpegts: 'it sends network traffic',
  rtsp: 'it sends network traffic',
  sap: 'it sends network traffic',
  null: 'it writes nothing, so there would be no output file',
  ffmetadata: 'not needed for media outputs',
};
