// Every encoder of the FFmpeg build in use, judged (packages/media/policy/ffmpeg-catalogue.json).
// Encoding reads frames and writes packets into the task's outputs, so every software encoder is
// allowed. Refused: encoders that need a GPU or other device. Options that name a file (two-pass
// statistics, x264/x265 side files) are refused; encoder parameter strings (x264-params and the
// like) pass key by key, with the keys that name files refused. A codec name (-c:v h264) selects
// the encoder FFmpeg itself picks for it (options/cli-value.ts).
import { allow, REASONS, refuse, refuseOption, type Verdicts } from './types.js';

/** Allowed as they are: no string option, nothing read, written or opened beyond the task's own streams. */
const PLAIN = [
  'a64multi', 'a64multi5', 'aac', 'ac3', 'ac3_fixed', 'adpcm_adx', 'adpcm_argo', 'adpcm_ima_alp',
  'adpcm_ima_amv', 'adpcm_ima_apm', 'adpcm_ima_qt', 'adpcm_ima_ssi', 'adpcm_ima_wav', 'adpcm_ima_ws',
  'adpcm_ms', 'adpcm_swf', 'adpcm_yamaha', 'alac', 'alias_pix', 'apng', 'aptx', 'aptx_hd', 'ass', 'asv1',
  'asv2', 'avrp', 'avui', 'ayuv', 'bitpacked', 'bmp', 'cfhd', 'cinepak', 'cljr', 'comfortnoise', 'dca',
  'dfpwm', 'dnxhd', 'dpx', 'dvbsub', 'dvvideo', 'eac3', 'exr', 'ffv1', 'ffvhuff', 'fits', 'flac', 'flashsv',
  'flashsv2', 'g722', 'g723_1', 'g726', 'g726le', 'gif', 'hap', 'huffyuv', 'jpegls', 'libcodec2', 'libgsm',
  'libgsm_ms', 'libjxl', 'libmp3lame', 'libopenjpeg', 'libopus', 'libshine', 'libspeex', 'libtheora',
  'libtwolame', 'libvorbis', 'libwebp', 'libwebp_anim', 'libxvid', 'ljpeg', 'magicyuv', 'mlp', 'mov_text',
  'mp2', 'mp2fixed', 'msvideo1', 'nellymoser', 'opus', 'pam', 'pbm', 'pcm_alaw', 'pcm_bluray', 'pcm_dvd',
  'pcm_f32be', 'pcm_f32le', 'pcm_f64be', 'pcm_f64le', 'pcm_mulaw', 'pcm_s16be', 'pcm_s16be_planar',
  'pcm_s16le', 'pcm_s16le_planar', 'pcm_s24be', 'pcm_s24daud', 'pcm_s24le', 'pcm_s24le_planar', 'pcm_s32be',
  'pcm_s32le', 'pcm_s32le_planar', 'pcm_s64be', 'pcm_s64le', 'pcm_s8', 'pcm_s8_planar', 'pcm_u16be',
  'pcm_u16le', 'pcm_u24be', 'pcm_u24le', 'pcm_u32be', 'pcm_u32le', 'pcm_u8', 'pcm_vidc', 'pcx', 'pfm', 'pgm',
  'pgmyuv', 'phm', 'png', 'ppm', 'qoi', 'qtrle', 'r10k', 'r210', 'rawvideo', 'real_144', 'roq_dpcm',
  'roqvideo', 'rpza', 's302m', 'sbc', 'sgi', 'smc', 'sonic', 'sonicls', 'srt', 'ssa', 'subrip', 'sunrast',
  'svq1', 'targa', 'text', 'tiff', 'truehd', 'tta', 'ttml', 'utvideo', 'v210', 'v308', 'v408', 'v410', 'vbn',
  'vc2', 'vorbis', 'wavpack', 'webvtt', 'wmav1', 'wmav2', 'wrapped_avframe', 'xbm', 'xface', 'xsub', 'xwd',
  'y41p', 'yuv4', 'zlib', 'zmbv',
];

/** Encoders that run on a GPU or other device. */
const HARDWARE = [
  'h263_v4l2m2m', 'h264_nvenc', 'h264_omx', 'h264_qsv', 'h264_v4l2m2m', 'h264_vaapi', 'hevc_nvenc',
  'hevc_qsv', 'hevc_v4l2m2m', 'hevc_vaapi', 'mjpeg_qsv', 'mjpeg_vaapi', 'mpeg2_qsv', 'mpeg2_vaapi',
  'mpeg4_omx', 'mpeg4_v4l2m2m', 'vp8_v4l2m2m', 'vp8_vaapi', 'vp9_qsv', 'vp9_vaapi',
];

export const ENCODER_VERDICTS: Verdicts = {
  ...Object.fromEntries(PLAIN.map((n) => [n, allow()])),
  ...Object.fromEntries(HARDWARE.map((n) => [n, refuse(REASONS.hardware, 'use the software encoder (libx264, libx265, libvpx-vp9, mjpeg...)')])),

  // Allowed, each string option judged.
  amv: allow({ rc_eq: 'expr' }),
  dvdsub: allow({ palette: 'token' }),
  flv: allow({ rc_eq: 'expr' }),
  h261: allow({ rc_eq: 'expr' }),
  h263: allow({ rc_eq: 'expr' }),
  h263p: allow({ rc_eq: 'expr' }),
  jpeg2000: allow({ layer_rates: 'token' }),
  'libaom-av1': allow({ 'aom-params': { params: { 'vmaf-model-path': 'it names a file', 'film-grain-table': 'it names a file', 'partition-info-path': 'it names a file', 'subgop-config-path': 'it names a file' } } }),
  librav1e: allow({ 'rav1e-params': { params: {  } } }),
  libsvtav1: allow({ 'svtav1-params': { params: { 'fgs-table': 'it names a file', 'roi-map-file': 'it names a file', 'stat-file': 'it names a file', qpfile: 'it names a file' } } }),
  libvpx: allow({ 'ts-parameters': { params: {  } } }),
  'libvpx-vp9': allow({ 'ts-parameters': { params: {  } } }),
  libx264: allow({ preset: 'token', tune: 'token', profile: 'token', level: 'token', wpredp: 'token', 'psy-rd': 'token', deblock: 'token', partitions: 'token', passlogfile: refuseOption('two-pass encoding passes a statistics file between two runs, which one task cannot do; use -crf, or -b:v with -maxrate and -bufsize'), stats: refuseOption('two-pass encoding passes a statistics file between two runs, which one task cannot do; use -crf, or -b:v with -maxrate and -bufsize'), 'x264-params': { params: { stats: 'it names a file', qpfile: 'it names a file', 'dump-yuv': 'it names a file', cqmfile: 'it names a file', 'tcfile-in': 'it names a file', 'tcfile-out': 'it names a file', 'opencl-clbin': 'it names a file', opencl: 'it needs a GPU' } }, x264opts: { params: { stats: 'it names a file', qpfile: 'it names a file', 'dump-yuv': 'it names a file', cqmfile: 'it names a file', 'tcfile-in': 'it names a file', 'tcfile-out': 'it names a file', 'opencl-clbin': 'it names a file', opencl: 'it needs a GPU' } } }),
  libx264rgb: allow({ preset: 'token', tune: 'token', profile: 'token', level: 'token', wpredp: 'token', 'psy-rd': 'token', deblock: 'token', partitions: 'token', passlogfile: refuseOption('two-pass encoding passes a statistics file between two runs, which one task cannot do; use -crf, or -b:v with -maxrate and -bufsize'), stats: refuseOption('two-pass encoding passes a statistics file between two runs, which one task cannot do; use -crf, or -b:v with -maxrate and -bufsize'), 'x264-params': { params: { stats: 'it names a file', qpfile: 'it names a file', 'dump-yuv': 'it names a file', cqmfile: 'it names a file', 'tcfile-in': 'it names a file', 'tcfile-out': 'it names a file', 'opencl-clbin': 'it names a file', opencl: 'it needs a GPU' } }, x264opts: { params: { stats: 'it names a file', qpfile: 'it names a file', 'dump-yuv': 'it names a file', cqmfile: 'it names a file', 'tcfile-in': 'it names a file', 'tcfile-out': 'it names a file', 'opencl-clbin': 'it names a file', opencl: 'it needs a GPU' } } }),
  libx265: allow({ preset: 'token', tune: 'token', profile: 'token', 'x265-params': { params: { csv: 'it names a file', 'analysis-save': 'it names a file', 'analysis-load': 'it names a file', 'analysis-reuse-file': 'it names a file', stats: 'it names a file', zonefile: 'it names a file', 'dolby-vision-rpu': 'it names a file', 'scaling-list': 'it names a file', 'lambda-file': 'it names a file', qpfile: 'it names a file', recon: 'it names a file', 'dhdr10-info': 'it names a file', 'film-grain': 'it names a file' } } }),
  mjpeg: allow({ rc_eq: 'expr' }),
  mpeg1video: allow({ gop_timecode: 'token', rc_eq: 'expr' }),
  mpeg2video: allow({ gop_timecode: 'token', rc_eq: 'expr' }),
  mpeg4: allow({ rc_eq: 'expr' }),
  msmpeg4: allow({ rc_eq: 'expr' }),
  msmpeg4v2: allow({ rc_eq: 'expr' }),
  prores: allow({ vendor: 'token' }),
  prores_aw: allow({ vendor: 'token' }),
  prores_ks: allow({ vendor: 'token' }),
  rv10: allow({ rc_eq: 'expr' }),
  rv20: allow({ rc_eq: 'expr' }),
  snow: allow({ rc_eq: 'expr' }),
  speedhq: allow({ rc_eq: 'expr' }),
  wmv1: allow({ rc_eq: 'expr' }),
  wmv2: allow({ rc_eq: 'expr' }),
};
