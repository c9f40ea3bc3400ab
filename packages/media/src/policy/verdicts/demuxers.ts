// Every demuxer of the FFmpeg build in use, judged (packages/media/policy/ffmpeg-catalogue.json).
// A demuxer reads one staged input. Allowed: every demuxer that reads only the bytes it is given.
// concat and image2 are allowed as the service builds them (a rewritten list of staged copies, a
// staged numbered run: plan/inputs.ts); a task naming them is planned that way. Refused: formats
// that open other files or URLs (playlists, manifests), devices, network sessions, the text-art
// formats that render any file as a picture, and lavfi (a graph as an input: use filter_complex).
import { allow, pinned, REASONS, refuse, type Verdicts } from './types.js';

/** Allowed as they are: no string option, nothing read, written or opened beyond the task's own streams. */
const PLAIN = [
  '3dostr', '4xm', 'aac', 'aax', 'ac3', 'ace', 'acm', 'act', 'adp', 'ads', 'adx', 'aea', 'afc', 'aiff',
  'aix', 'alaw', 'alp', 'amr', 'amrnb', 'amrwb', 'anm', 'apc', 'ape', 'apm', 'apng', 'aptx', 'aptx_hd',
  'aqtitle', 'argo_asf', 'argo_brp', 'argo_cvg', 'asf', 'asf_o', 'ass', 'ast', 'au', 'av1', 'avi', 'avr',
  'avs', 'avs2', 'avs3', 'bethsoftvid', 'bfi', 'bfstm', 'bink', 'binka', 'bit', 'bmv', 'boa', 'brstm', 'c93',
  'caf', 'cavsvideo', 'cdg', 'cdxl', 'cine', 'codec2', 'codec2raw', 'data', 'daud', 'dcstr', 'derf', 'dfa',
  'dfpwm', 'dhav', 'dirac', 'dnxhd', 'dsf', 'dsicin', 'dss', 'dts', 'dtshd', 'dv', 'dvbsub', 'dvbtxt', 'dxa',
  'ea', 'ea_cdata', 'eac3', 'epaf', 'f32be', 'f32le', 'f64be', 'f64le', 'ffmetadata', 'film_cpk',
  'filmstrip', 'fits', 'flac', 'flic', 'flv', 'frm', 'fsb', 'fwse', 'g722', 'g723_1', 'g726', 'g726le',
  'g729', 'gdv', 'genh', 'gif', 'gsm', 'gxf', 'h261', 'h263', 'h264', 'hca', 'hcom', 'hevc', 'hnm', 'ico',
  'idcin', 'iff', 'ifv', 'ilbc', 'ingenient', 'ipmovie', 'ipu', 'ircam', 'iss', 'iv8', 'ivf', 'ivr',
  'jacosub', 'jv', 'kux', 'kvag', 'libgme', 'libopenmpt', 'live_flv', 'lmlm4', 'loas', 'lrc', 'luodat',
  'lvf', 'lxf', 'm4v', 'matroska,webm', 'mca', 'mcc', 'mgsts', 'microdvd', 'mjpeg', 'mjpeg_2000', 'mlp',
  'mlv', 'mm', 'mmf', 'mods', 'moflex', 'mp3', 'mpc', 'mpc8', 'mpeg', 'mpegts', 'mpegtsraw', 'mpegvideo',
  'mpjpeg', 'mpl2', 'mpsub', 'msf', 'msnwctcp', 'msp', 'mtaf', 'mtv', 'mulaw', 'musx', 'mv', 'mvi', 'mxf',
  'mxg', 'nc', 'nistsphere', 'nsp', 'nsv', 'nut', 'nuv', 'obu', 'ogg', 'oma', 'paf', 'pjs', 'pmp', 'pp_bnk',
  'psxstr', 'pva', 'pvf', 'qcp', 'r3d', 'realtext', 'redspark', 'rl2', 'rm', 'roq', 'rpl', 'rsd', 'rso',
  's16be', 's16le', 's24be', 's24le', 's32be', 's32le', 's337m', 's8', 'sami', 'sbc', 'sbg', 'scc', 'scd',
  'sdr2', 'sds', 'sdx', 'ser', 'sga', 'shn', 'siff', 'simbiosis_imx', 'sln', 'smjpeg', 'smk', 'smush', 'sol',
  'sox', 'spdif', 'srt', 'stl', 'subviewer', 'subviewer1', 'sup', 'svag', 'svs', 'swf', 'tak', 'tedcaptions',
  'thp', 'tiertexseq', 'tmv', 'truehd', 'tta', 'txd', 'ty', 'u16be', 'u16le', 'u24be', 'u24le', 'u32be',
  'u32le', 'u8', 'v210', 'v210x', 'vag', 'vc1', 'vc1test', 'vidc', 'vividas', 'vivo', 'vmd', 'voc', 'vpk',
  'vplayer', 'vqf', 'w64', 'wav', 'wc3movie', 'webvtt', 'wsaud', 'wsd', 'wsvqa', 'wtv', 'wv', 'wve', 'xa',
  'xmv', 'xvag', 'xwma', 'yop', 'yuv4mpegpipe',
];

/** Capture devices. */
const DEVICES = [
  'alsa', 'fbdev', 'iec61883', 'jack', 'kmsgrab', 'libcdio', 'libdc1394', 'openal', 'oss', 'pulse',
  'video4linux2,v4l2', 'x11grab',
];

/** Session descriptions and network sessions. */
const NETWORK = [
  'rtp', 'rtsp', 'sap', 'sdp',
];

/** Formats that render any bytes as a picture of text. */
const TEXT_ART = [
  'tty', 'bin', 'xbin', 'idf', 'adf',
];

export const DEMUXER_VERDICTS: Verdicts = {
  ...Object.fromEntries(PLAIN.map((n) => [n, allow()])),
  ...Object.fromEntries(DEVICES.map((n) => [n, refuse(REASONS.device)])),
  ...Object.fromEntries(NETWORK.map((n) => [n, refuse(REASONS.opensNetwork)])),
  ...Object.fromEntries(TEXT_ART.map((n) => [n, refuse(REASONS.textArt)])),

  // Allowed, each string option judged.
  aa: allow({ aa_fixed_key: 'token' }),
  alias_pix: allow({ pixel_format: 'token' }),
  bitpacked: allow({ pixel_format: 'token' }),
  bmp_pipe: allow({ pixel_format: 'token' }),
  brender_pix: allow({ pixel_format: 'token' }),
  concat: allow({ safe: pinned('1', 'list entries are the staged copies') }),
  cri_pipe: allow({ pixel_format: 'token' }),
  dds_pipe: allow({ pixel_format: 'token' }),
  dpx_pipe: allow({ pixel_format: 'token' }),
  exr_pipe: allow({ pixel_format: 'token' }),
  gem_pipe: allow({ pixel_format: 'token' }),
  gif_pipe: allow({ pixel_format: 'token' }),
  image2: allow({ pixel_format: 'token', pattern_type: pinned('sequence', 'the service stages exactly the numbered files') }),
  image2pipe: allow({ pixel_format: 'token' }),
  j2k_pipe: allow({ pixel_format: 'token' }),
  jpeg_pipe: allow({ pixel_format: 'token' }),
  jpegls_pipe: allow({ pixel_format: 'token' }),
  jpegxl_pipe: allow({ pixel_format: 'token' }),
  'mov,mp4,m4a,3gp,3g2,mj2': allow({ enable_drefs: pinned('0', 'references to other files are never followed'), use_absolute_path: pinned('0', 'references to other files are never followed'), activation_bytes: 'token', audible_key: 'token', audible_iv: 'token', audible_fixed_key: 'token', decryption_key: 'token' }),
  pam_pipe: allow({ pixel_format: 'token' }),
  pbm_pipe: allow({ pixel_format: 'token' }),
  pcx_pipe: allow({ pixel_format: 'token' }),
  pfm_pipe: allow({ pixel_format: 'token' }),
  pgm_pipe: allow({ pixel_format: 'token' }),
  pgmyuv_pipe: allow({ pixel_format: 'token' }),
  pgx_pipe: allow({ pixel_format: 'token' }),
  phm_pipe: allow({ pixel_format: 'token' }),
  photocd_pipe: allow({ pixel_format: 'token' }),
  pictor_pipe: allow({ pixel_format: 'token' }),
  png_pipe: allow({ pixel_format: 'token' }),
  ppm_pipe: allow({ pixel_format: 'token' }),
  psd_pipe: allow({ pixel_format: 'token' }),
  qdraw_pipe: allow({ pixel_format: 'token' }),
  qoi_pipe: allow({ pixel_format: 'token' }),
  rawvideo: allow({ pixel_format: 'token' }),
  sgi_pipe: allow({ pixel_format: 'token' }),
  sunrast_pipe: allow({ pixel_format: 'token' }),
  svg_pipe: allow({ pixel_format: 'token' }),
  tiff_pipe: allow({ pixel_format: 'token' }),
  vbn_pipe: allow({ pixel_format: 'token' }),
  webp_pipe: allow({ pixel_format: 'token' }),
  xbm_pipe: allow({ pixel_format: 'token' }),
  xpm_pipe: allow({ pixel_format: 'token' }),
  xwd_pipe: allow({ pixel_format: 'token' }),

  // Refused.
  hls: refuse(REASONS.references, 'upload the media files and name them in task.inputs'),
  dash: refuse(REASONS.references, 'upload the media files and name them in task.inputs'),
  imf: refuse(REASONS.references, 'upload the media files and name them in task.inputs'),
  webm_dash_manifest: refuse(REASONS.references, 'upload the media files and name them in task.inputs'),
  vobsub: refuse(REASONS.references, 'upload the subtitle file it names and use -f mpeg'),
  lavfi: refuse('it builds an input from a filter graph', 'use a source filter in filter_complex, such as color=c=black:s=640x480:d=5'),
};
