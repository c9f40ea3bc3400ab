// Every decoder of the FFmpeg build in use, judged (packages/media/policy/ffmpeg-catalogue.json).
// Decoding reads the packets of a staged input, so every software decoder is allowed (FFmpeg picks
// one for each stream; -c:v as an input option picks another). Refused: decoders that need a GPU,
// and the text-art decoders that render any bytes as a picture of text (every known file-leak
// chain ends in one: a file read as text and turned into an image).
import { allow, REASONS, refuse, refuseOption, type Verdicts } from './types.js';

/** Allowed as they are: no string option, nothing read, written or opened beyond the task's own streams. */
const PLAIN = [
  '012v', '4xm', '8bps', '8svx_exp', '8svx_fib', 'aac', 'aac_fixed', 'aac_latm', 'aasc', 'ac3', 'ac3_fixed',
  'acelp.kelvin', 'adpcm_4xm', 'adpcm_adx', 'adpcm_afc', 'adpcm_agm', 'adpcm_aica', 'adpcm_argo', 'adpcm_ct',
  'adpcm_dtk', 'adpcm_ea', 'adpcm_ea_maxis_xa', 'adpcm_ea_r1', 'adpcm_ea_r2', 'adpcm_ea_r3', 'adpcm_ea_xas',
  'adpcm_ima_acorn', 'adpcm_ima_alp', 'adpcm_ima_amv', 'adpcm_ima_apc', 'adpcm_ima_apm', 'adpcm_ima_cunning',
  'adpcm_ima_dat4', 'adpcm_ima_dk3', 'adpcm_ima_dk4', 'adpcm_ima_ea_eacs', 'adpcm_ima_ea_sead',
  'adpcm_ima_iss', 'adpcm_ima_moflex', 'adpcm_ima_mtf', 'adpcm_ima_oki', 'adpcm_ima_qt', 'adpcm_ima_rad',
  'adpcm_ima_smjpeg', 'adpcm_ima_ssi', 'adpcm_ima_wav', 'adpcm_ima_ws', 'adpcm_ms', 'adpcm_mtaf',
  'adpcm_psx', 'adpcm_sbpro_2', 'adpcm_sbpro_3', 'adpcm_sbpro_4', 'adpcm_swf', 'adpcm_thp', 'adpcm_thp_le',
  'adpcm_vima', 'adpcm_xa', 'adpcm_yamaha', 'adpcm_zork', 'agm', 'aic', 'alac', 'alias_pix', 'als', 'amrnb',
  'amrwb', 'amv', 'anm', 'ape', 'apng', 'aptx', 'aptx_hd', 'arbc', 'argo', 'ass', 'asv1', 'asv2', 'atrac1',
  'atrac3', 'atrac3al', 'atrac3plus', 'atrac3plusal', 'atrac9', 'aura', 'aura2', 'av1', 'avrn', 'avrp',
  'avs', 'avui', 'ayuv', 'bethsoftvid', 'bfi', 'binkaudio_dct', 'binkaudio_rdft', 'binkvideo', 'bitpacked',
  'bmp', 'bmv_audio', 'bmv_video', 'brender_pix', 'c93', 'camstudio', 'camtasia', 'cavs', 'cc_dec',
  'cdgraphics', 'cdtoons', 'cdxl', 'cfhd', 'cinepak', 'clearvideo', 'cljr', 'cllc', 'comfortnoise', 'cook',
  'cpia', 'cri', 'cyuv', 'dca', 'dds', 'derf_dpcm', 'dfa', 'dfpwm', 'dirac', 'dnxhd', 'dolby_e', 'dpx',
  'dsd_lsbf', 'dsd_lsbf_planar', 'dsd_msbf', 'dsd_msbf_planar', 'dsicinaudio', 'dsicinvideo', 'dss_sp',
  'dst', 'dvaudio', 'dvbsub', 'dvvideo', 'dxa', 'dxtory', 'dxv', 'eac3', 'eacmv', 'eamad', 'eatgq', 'eatgv',
  'eatqi', 'escape124', 'escape130', 'evrc', 'fastaudio', 'ffv1', 'ffvhuff', 'fic', 'fits', 'flac',
  'flashsv', 'flashsv2', 'flic', 'flv', 'fmvc', 'fraps', 'frwu', 'g2m', 'g722', 'g723_1', 'g726', 'g726le',
  'g729', 'gdv', 'gem', 'gif', 'gremlin_dpcm', 'gsm', 'gsm_ms', 'h261', 'h263', 'h263i', 'h263p', 'h264',
  'hap', 'hca', 'hcom', 'hevc', 'hnm4video', 'hq_hqa', 'hqx', 'huffyuv', 'hymt', 'iac', 'idcinvideo', 'iff',
  'ilbc', 'imc', 'imm4', 'imm5', 'indeo2', 'indeo3', 'indeo4', 'indeo5', 'interplay_dpcm', 'interplayacm',
  'interplayvideo', 'ipu', 'jacosub', 'jpeg2000', 'jpegls', 'jv', 'kgv1', 'kmvc', 'lagarith', 'libaom-av1',
  'libcodec2', 'libdav1d', 'libgsm', 'libgsm_ms', 'libjxl', 'libopenjpeg', 'libopus', 'librsvg', 'libspeex',
  'libvorbis', 'libvpx', 'libvpx-vp9', 'loco', 'lscr', 'm101', 'mace3', 'mace6', 'magicyuv', 'mdec',
  'metasound', 'microdvd', 'mimic', 'mjpeg', 'mjpegb', 'mlp', 'mmvideo', 'mobiclip', 'motionpixels',
  'mov_text', 'mp1', 'mp1float', 'mp2', 'mp2float', 'mp3', 'mp3adu', 'mp3adufloat', 'mp3float', 'mp3on4',
  'mp3on4float', 'mpc7', 'mpc8', 'mpeg1video', 'mpeg2video', 'mpeg4', 'mpegvideo', 'mpl2', 'msa1', 'mscc',
  'msmpeg4', 'msmpeg4v1', 'msmpeg4v2', 'msnsiren', 'msp2', 'msrle', 'mss1', 'mss2', 'msvideo1', 'mszh',
  'mts2', 'mv30', 'mvc1', 'mvc2', 'mvdv', 'mvha', 'mwsc', 'mxpeg', 'nellymoser', 'notchlc', 'nuv', 'on2avc',
  'opus', 'paf_audio', 'paf_video', 'pam', 'pbm', 'pcm_alaw', 'pcm_bluray', 'pcm_dvd', 'pcm_f16le',
  'pcm_f24le', 'pcm_f32be', 'pcm_f32le', 'pcm_f64be', 'pcm_f64le', 'pcm_lxf', 'pcm_mulaw', 'pcm_s16be',
  'pcm_s16be_planar', 'pcm_s16le', 'pcm_s16le_planar', 'pcm_s24be', 'pcm_s24daud', 'pcm_s24le',
  'pcm_s24le_planar', 'pcm_s32be', 'pcm_s32le', 'pcm_s32le_planar', 'pcm_s64be', 'pcm_s64le', 'pcm_s8',
  'pcm_s8_planar', 'pcm_sga', 'pcm_u16be', 'pcm_u16le', 'pcm_u24be', 'pcm_u24le', 'pcm_u32be', 'pcm_u32le',
  'pcm_u8', 'pcm_vidc', 'pcx', 'pfm', 'pgm', 'pgmyuv', 'pgssub', 'pgx', 'phm', 'photocd', 'pictor', 'pixlet',
  'pjs', 'png', 'ppm', 'prores', 'prosumer', 'psd', 'ptx', 'qcelp', 'qdm2', 'qdmc', 'qdraw', 'qoi', 'qpeg',
  'qtrle', 'r10k', 'r210', 'ralf', 'rasc', 'rawvideo', 'real_144', 'real_288', 'realtext', 'rl2', 'roq_dpcm',
  'roqvideo', 'rpza', 'rscc', 'rv10', 'rv20', 'rv30', 'rv40', 's302m', 'sami', 'sanm', 'sbc', 'scpr',
  'screenpresso', 'sdx2_dpcm', 'sga', 'sgi', 'sgirle', 'sheervideo', 'shorten', 'simbiosis_imx', 'sipr',
  'siren', 'smackaud', 'smackvid', 'smc', 'smvjpeg', 'snow', 'sol_dpcm', 'sonic', 'sp5x', 'speedhq', 'speex',
  'srgc', 'srt', 'ssa', 'stl', 'subrip', 'subviewer', 'subviewer1', 'sunrast', 'svq1', 'svq3', 'tak',
  'targa', 'targa_y216', 'tdsc', 'text', 'theora', 'thp', 'tiertexseqvideo', 'tiff', 'tmv', 'truehd',
  'truemotion1', 'truemotion2', 'truemotion2rt', 'truespeech', 'tscc2', 'twinvq', 'txd', 'ultimotion',
  'utvideo', 'v210', 'v210x', 'v308', 'v408', 'v410', 'vb', 'vble', 'vbn', 'vc1', 'vc1image', 'vcr1',
  'vmdaudio', 'vmdvideo', 'vmnc', 'vorbis', 'vp3', 'vp4', 'vp5', 'vp6', 'vp6a', 'vp6f', 'vp7', 'vp8', 'vp9',
  'vplayer', 'vqavideo', 'wavesynth', 'wavpack', 'wcmv', 'webp', 'webvtt', 'wmalossless', 'wmapro', 'wmav1',
  'wmav2', 'wmavoice', 'wmv1', 'wmv2', 'wmv3', 'wmv3image', 'wnv1', 'wrapped_avframe', 'ws_snd1', 'xan_dpcm',
  'xan_wc3', 'xan_wc4', 'xbm', 'xface', 'xl', 'xma1', 'xma2', 'xpm', 'xsub', 'xwd', 'y41p', 'ylc', 'yop',
  'yuv4', 'zerocodec', 'zlib', 'zmbv',
];

/** Decoders that run on a GPU or other device. */
const HARDWARE = [
  'av1_cuvid', 'av1_qsv', 'h263_v4l2m2m', 'h264_cuvid', 'h264_qsv', 'h264_v4l2m2m', 'hevc_cuvid', 'hevc_qsv',
  'hevc_v4l2m2m', 'mjpeg_cuvid', 'mjpeg_qsv', 'mpeg1_cuvid', 'mpeg1_v4l2m2m', 'mpeg2_cuvid', 'mpeg2_qsv',
  'mpeg2_v4l2m2m', 'mpeg4_cuvid', 'mpeg4_v4l2m2m', 'vc1_cuvid', 'vc1_qsv', 'vc1_v4l2m2m', 'vp8_cuvid',
  'vp8_qsv', 'vp8_v4l2m2m', 'vp9_cuvid', 'vp9_qsv', 'vp9_v4l2m2m',
];

/** Decoders that draw arbitrary bytes as text. */
const TEXT_ART = [
  'ansi', 'bintext', 'xbin', 'idf',
];

export const DECODER_VERDICTS: Verdicts = {
  ...Object.fromEntries(PLAIN.map((n) => [n, allow()])),
  ...Object.fromEntries(HARDWARE.map((n) => [n, refuse(REASONS.hardware, 'leave -c:v out: FFmpeg picks its software decoder')])),
  ...Object.fromEntries(TEXT_ART.map((n) => [n, refuse(REASONS.textArt)])),

  // Allowed, each string option judged.
  dvdsub: allow({ palette: 'token', ifo_palette: refuseOption('it reads a DVD IFO file; give the palette with palette= instead') }),
  exr: allow({ layer: 'token' }),
  libzvbi_teletextdec: allow({ txt_page: 'token' }),
  tta: allow({ password: 'text' }),
};
