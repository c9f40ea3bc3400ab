// Every muxer of the FFmpeg build in use, judged (packages/media/policy/ffmpeg-catalogue.json).
// A muxer writes the task's output file. Allowed: every muxer that writes only that file, and
// the packagers (hls, dash) and numbered images (image2) whose further files the service names
// after the output and writes next to it (plan/outputs.ts). Refused: devices, muxers that send
// to the network, and muxers that write files of their own choosing (tee, segment, fifo...).
import { allow, OPTION_REASONS, pinned, REASONS, refuse, refuseOption, type Verdicts } from './types.js';

/** Allowed as they are: no string option, nothing read, written or opened beyond the task's own streams. */
const PLAIN = [
  'a64', 'ac3', 'adts', 'adx', 'aiff', 'alaw', 'alp', 'amr', 'amv', 'apm', 'apng', 'aptx', 'aptx_hd',
  'argo_cvg', 'asf', 'asf_stream', 'ass', 'ast', 'au', 'avi', 'avif', 'avm2', 'avs2', 'avs3', 'bit', 'caf',
  'cavsvideo', 'chromaprint', 'codec2', 'codec2raw', 'crc', 'data', 'daud', 'dfpwm', 'dirac', 'dnxhd', 'dts',
  'dv', 'dvd', 'eac3', 'f32be', 'f32le', 'f64be', 'f64le', 'ffmetadata', 'film_cpk', 'filmstrip', 'fits',
  'flac', 'flv', 'framecrc', 'g722', 'g723_1', 'g726', 'g726le', 'gif', 'gsm', 'gxf', 'h261', 'h263', 'h264',
  'hevc', 'ico', 'ilbc', 'image2pipe', 'ircam', 'ivf', 'jacosub', 'kvag', 'latm', 'lrc', 'm4v', 'matroska',
  'microdvd', 'mjpeg', 'mkvtimestamp_v2', 'mlp', 'mmf', 'mp2', 'mp3', 'mpeg', 'mpeg1video', 'mpeg2video',
  'mpegts', 'mulaw', 'mxf', 'mxf_d10', 'mxf_opatom', 'null', 'nut', 'obu', 'oga', 'ogg', 'ogv', 'oma',
  'opus', 'rawvideo', 'rm', 'roq', 'rso', 's16be', 's16le', 's24be', 's24le', 's32be', 's32le', 's8', 'sbc',
  'scc', 'smjpeg', 'sox', 'spdif', 'spx', 'srt', 'sup', 'svcd', 'swf', 'truehd', 'tta', 'ttml', 'u16be',
  'u16le', 'u24be', 'u24le', 'u32be', 'u32le', 'u8', 'uncodedframecrc', 'vc1', 'vc1test', 'vcd', 'vidc',
  'vob', 'voc', 'w64', 'wav', 'webm', 'webp', 'webvtt', 'wsaud', 'wtv', 'wv', 'yuv4mpegpipe',
];

/** Playback devices. */
const DEVICES = [
  'alsa', 'caca', 'fbdev', 'opengl', 'oss', 'pulse', 'sdl,sdl2', 'video4linux2,v4l2', 'xv',
];

/** Muxers that send to the network. */
const NETWORK = [
  'rtp', 'rtp_mpegts', 'rtsp', 'sap',
];

/** Muxers that write further files, named by their options or by the muxer. */
const FURTHER_FILES = [
  'tee', 'segment', 'stream_segment,ssegment', 'webm_chunk', 'hds', 'smoothstreaming', 'fifo', 'fifo_test',
];

export const MUXER_VERDICTS: Verdicts = {
  ...Object.fromEntries(PLAIN.map((n) => [n, allow()])),
  ...Object.fromEntries(DEVICES.map((n) => [n, refuse(REASONS.device)])),
  ...Object.fromEntries(NETWORK.map((n) => [n, refuse(REASONS.opensNetwork)])),
  ...Object.fromEntries(FURTHER_FILES.map((n) => [n, refuse(REASONS.writesFiles, 'write each piece as an output of the task, or use -f hls or -f dash')])),

  // Allowed, each string option judged.
  '3g2': allow({ brand: 'token', encryption_scheme: 'token', encryption_key: 'token', encryption_kid: 'token' }),
  '3gp': allow({ brand: 'token', encryption_scheme: 'token', encryption_key: 'token', encryption_kid: 'token' }),
  argo_asf: allow({ name: 'text' }),
  dash: allow({ adaptation_sets: 'token', single_file_name: refuseOption(OPTION_REASONS.namesFiles), init_seg_name: pinned('<stem>-init-stream$RepresentationID$.$ext$', 'segments are named after the manifest'), media_seg_name: pinned('<stem>-chunk-stream$RepresentationID$-$Number%05d$.$ext$', 'segments are named after the manifest'), utc_timing_url: 'text', method: refuseOption(REASONS.opensNetwork), http_user_agent: refuseOption(REASONS.opensNetwork), http_persistent: refuseOption(REASONS.opensNetwork), hls_master_name: 'token', format_options: 'token', http_opts: refuseOption(REASONS.opensNetwork) }),
  f4v: allow({ brand: 'token', encryption_scheme: 'token', encryption_key: 'token', encryption_kid: 'token' }),
  framehash: allow({ hash: 'token' }),
  framemd5: allow({ hash: 'token' }),
  hash: allow({ hash: 'token' }),
  hls: allow({ hls_ts_options: 'token', hls_vtt_options: 'token', hls_base_url: 'text', hls_segment_filename: pinned('<stem>%d.ts (.m4s for fmp4)', 'segments are named after the playlist, next to it'), hls_segment_options: 'token', hls_key_info_file: refuseOption('it reads a key file the service did not stage; use hls_enc=1 with hls_enc_key'), hls_enc_key: 'token', hls_enc_key_url: 'text', hls_enc_iv: 'token', hls_subtitle_path: refuseOption(OPTION_REASONS.namesFiles), hls_fmp4_init_filename: pinned('<stem>_init.mp4', 'the init segment is named after the playlist'), method: refuseOption(REASONS.opensNetwork), http_user_agent: refuseOption(REASONS.opensNetwork), headers: refuseOption(REASONS.opensNetwork), http_persistent: refuseOption(REASONS.opensNetwork), var_stream_map: refuseOption('make one HLS output per variant instead'), cc_stream_map: 'token', master_pl_name: 'token', strftime: refuseOption(OPTION_REASONS.namesFiles), strftime_mkdir: refuseOption(OPTION_REASONS.namesFiles), hls_list_size: { min: 0, max: 1000, why: 'playlist entries' } }),
  image2: allow({ protocol_opts: refuseOption(OPTION_REASONS.protocols), strftime: refuseOption(OPTION_REASONS.namesFiles), frame_pts: refuseOption(OPTION_REASONS.namesFiles) }),
  ipod: allow({ brand: 'token', encryption_scheme: 'token', encryption_key: 'token', encryption_kid: 'token' }),
  ismv: allow({ brand: 'token', encryption_scheme: 'token', encryption_key: 'token', encryption_kid: 'token' }),
  md5: allow({ hash: 'token' }),
  mov: allow({ brand: 'token', encryption_scheme: 'token', encryption_key: 'token', encryption_kid: 'token' }),
  mp4: allow({ brand: 'token', encryption_scheme: 'token', encryption_key: 'token', encryption_kid: 'token' }),
  mpjpeg: allow({ boundary_tag: 'token' }),
  psp: allow({ brand: 'token', encryption_scheme: 'token', encryption_key: 'token', encryption_kid: 'token' }),
  streamhash: allow({ hash: 'token' }),

  // Refused.
  webm_dash_manifest: refuse(REASONS.readsFiles, 'use -f dash'),
};
