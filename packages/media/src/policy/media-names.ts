// Allow-listed names for option values: encoders, pixel and sample formats, presets, profiles,
// flags. Pure data. A name missing here is refused even if ffmpeg knows it; add it with a reason.

export type MediaType = 'video' | 'audio' | 'subtitle';

/** Software encoders (no hardware devices, no external files), plus 'copy'. */
export const ENCODERS: Readonly<Record<string, MediaType | 'any'>> = {
  copy: 'any',
  // Video.
  libx264: 'video', libx264rgb: 'video', libx265: 'video', 'libvpx': 'video', 'libvpx-vp9': 'video',
  'libaom-av1': 'video', libsvtav1: 'video', librav1e: 'video', libtheora: 'video', libxvid: 'video',
  mpeg4: 'video', mpeg2video: 'video', mpeg1video: 'video', h263: 'video', h263p: 'video',
  mjpeg: 'video', png: 'video', apng: 'video', gif: 'video', bmp: 'video', tiff: 'video',
  libwebp: 'video', libwebp_anim: 'video', prores: 'video', prores_ks: 'video', prores_aw: 'video',
  dnxhd: 'video', ffv1: 'video', huffyuv: 'video', ffvhuff: 'video', utvideo: 'video', rawvideo: 'video',
  qtrle: 'video', flv: 'video',
  // Audio.
  aac: 'audio', libfdk_aac: 'audio', libmp3lame: 'audio', libopus: 'audio', opus: 'audio',
  libvorbis: 'audio', vorbis: 'audio', flac: 'audio', alac: 'audio', ac3: 'audio', eac3: 'audio',
  mp2: 'audio', libtwolame: 'audio', libshine: 'audio', wavpack: 'audio',
  pcm_s16le: 'audio', pcm_s16be: 'audio', pcm_s24le: 'audio', pcm_s24be: 'audio', pcm_s32le: 'audio',
  pcm_f32le: 'audio', pcm_f64le: 'audio', pcm_u8: 'audio', pcm_alaw: 'audio', pcm_mulaw: 'audio',
  // Subtitles (re-encode subtitle streams of the inputs; they read nothing else).
  mov_text: 'subtitle', srt: 'subtitle', subrip: 'subtitle', webvtt: 'subtitle', ass: 'subtitle',
  ssa: 'subtitle', text: 'subtitle', dvdsub: 'subtitle', dvbsub: 'subtitle',
};

export const PIXEL_FORMATS = [
  'yuv420p', 'yuvj420p', 'yuv422p', 'yuvj422p', 'yuv444p', 'yuvj444p', 'yuv440p', 'yuv411p', 'yuv410p',
  'yuv420p10le', 'yuv422p10le', 'yuv444p10le', 'yuv420p12le', 'yuv422p12le', 'yuv444p12le',
  'yuv420p16le', 'yuv444p16le', 'yuva420p', 'yuva422p', 'yuva444p', 'yuva444p10le',
  'nv12', 'nv21', 'nv16', 'p010le', 'p016le', 'yuyv422', 'uyvy422',
  'rgb24', 'bgr24', 'rgba', 'bgra', 'argb', 'abgr', 'rgb0', 'bgr0', '0rgb', '0bgr', 'rgb48le', 'rgba64le',
  'rgb565le', 'rgb555le', 'gbrp', 'gbrp10le', 'gbrp12le', 'gbrap', 'gray', 'gray10le', 'gray12le',
  'gray16le', 'ya8', 'pal8', 'monob', 'monow',
] as const;

export const SAMPLE_FORMATS = ['u8', 's16', 's32', 's64', 'flt', 'dbl', 'u8p', 's16p', 's32p', 's64p', 'fltp', 'dblp'] as const;

export const CHANNEL_LAYOUTS = [
  'mono', 'stereo', '2.1', '3.0', '3.0(back)', '4.0', 'quad', 'quad(side)', '3.1', '5.0', '5.0(side)', '4.1',
  '5.1', '5.1(side)', '6.0', '6.0(front)', 'hexagonal', '6.1', '6.1(back)', '6.1(front)', '7.0',
  '7.0(front)', '7.1', '7.1(wide)', '7.1(wide-side)', 'octagonal', 'downmix',
] as const;

/** x264/x265 presets, libwebp presets, libvpx/libaom deadlines share -preset/-deadline/-quality. */
export const PRESETS = [
  'ultrafast', 'superfast', 'veryfast', 'faster', 'fast', 'medium', 'slow', 'slower', 'veryslow', 'placebo',
  'none', 'default', 'picture', 'photo', 'drawing', 'icon', 'text',
] as const;

export const TUNES = ['film', 'animation', 'grain', 'stillimage', 'fastdecode', 'zerolatency', 'psnr', 'ssim'] as const;

export const PROFILES = [
  // H.264 / HEVC / AV1.
  'baseline', 'constrained_baseline', 'main', 'extended', 'high', 'high10', 'high422', 'high444', 'high444p',
  'main10', 'main12', 'main422-10', 'main422-12', 'main444-8', 'main444-10', 'main444-12', 'mainstillpicture',
  'professional',
  // AAC.
  'aac_low', 'aac_he', 'aac_he_v2', 'aac_ld', 'aac_eld', 'aac_main', 'aac_ltp', 'mpeg2_aac_low',
  // ProRes and DNxHR.
  'proxy', 'lt', 'standard', 'hq', '4444', '4444xq', 'auto',
  'dnxhd', 'dnxhr_lb', 'dnxhr_sq', 'dnxhr_hq', 'dnxhr_hqx', 'dnxhr_444',
] as const;

export const DEADLINES = ['good', 'best', 'realtime'] as const;

/** -movflags (mov/mp4 muxer). None of them names a file. */
export const MOVFLAGS = [
  'faststart', 'frag_keyframe', 'empty_moov', 'default_base_moof', 'separate_moof', 'frag_custom', 'isml',
  'omit_tfhd_offset', 'disable_chpl', 'write_colr', 'write_gama', 'use_metadata_tags', 'negative_cts_offsets',
  'skip_trailer', 'global_sidx', 'dash', 'cmaf', 'frag_every_frame', 'frag_discont', 'delay_moov', 'skip_sidx',
  'prefer_icc', 'hybrid_fragmented',
] as const;

/** Codec -flags. */
export const CODEC_FLAGS = ['global_header', 'cgop', 'ildct', 'ilme', 'low_delay', 'bitexact', 'gray', 'mv4', 'qpel', 'aic', 'loop'] as const;

export const SWS_FLAGS = [
  'fast_bilinear', 'bilinear', 'bicubic', 'experimental', 'neighbor', 'area', 'bicublin', 'gauss', 'sinc',
  'lanczos', 'spline', 'accurate_rnd', 'full_chroma_int', 'full_chroma_inp', 'bitexact',
] as const;

export const DISPOSITIONS = [
  'default', 'dub', 'original', 'comment', 'lyrics', 'karaoke', 'forced', 'hearing_impaired', 'visual_impaired',
  'clean_effects', 'attached_pic', 'timed_thumbnails', 'captions', 'descriptions', 'metadata', 'dependent',
  'still_image',
] as const;

/** Bitstream filters that take no arguments and touch nothing but the packets. */
export const BITSTREAM_FILTERS = [
  'aac_adtstoasc', 'h264_mp4toannexb', 'hevc_mp4toannexb', 'vp9_superframe', 'vp9_superframe_split',
  'extract_extradata', 'remove_extra', 'dump_extra', 'mpeg4_unpack_bframes', 'null',
] as const;

export const COLOR_PRIMARIES = [
  'bt709', 'unknown', 'bt470m', 'bt470bg', 'smpte170m', 'smpte240m', 'film', 'bt2020', 'smpte428', 'smpte428_1',
  'smpte431', 'smpte432', 'jedec-p22', 'ebu3213', 'unspecified',
] as const;

export const COLOR_TRCS = [
  'bt709', 'unknown', 'gamma22', 'gamma28', 'smpte170m', 'smpte240m', 'linear', 'log100', 'log316',
  'iec61966-2-4', 'bt1361e', 'iec61966-2-1', 'bt2020-10', 'bt2020-12', 'smpte2084', 'smpte428', 'arib-std-b67',
  'unspecified', 'log', 'log_sqrt', 'iec61966_2_4', 'bt1361', 'iec61966_2_1', 'bt2020_10bit', 'bt2020_12bit',
  'smpte428_1',
] as const;

export const COLORSPACES = [
  'rgb', 'bt709', 'unknown', 'fcc', 'bt470bg', 'smpte170m', 'smpte240m', 'ycgco', 'bt2020nc', 'bt2020c',
  'smpte2085', 'chroma-derived-nc', 'chroma-derived-c', 'ictcp', 'unspecified', 'ycocg', 'bt2020_ncl',
  'bt2020_cl',
] as const;

export const COLOR_RANGES = ['unknown', 'tv', 'pc', 'mpeg', 'jpeg', 'limited', 'full', 'unspecified'] as const;

/** Named frame sizes (ffmpeg av_parse_video_size); all within the 8192 limit. */
export const NAMED_SIZES: Readonly<Record<string, readonly [number, number]>> = {
  ntsc: [720, 480], pal: [720, 576], qntsc: [352, 240], qpal: [352, 288], sntsc: [640, 480], spal: [768, 576],
  film: [352, 240], 'ntsc-film': [352, 240], sqcif: [128, 96], qcif: [176, 144], cif: [352, 288],
  '4cif': [704, 576], '16cif': [1408, 1152], qqvga: [160, 120], qvga: [320, 240], vga: [640, 480],
  svga: [800, 600], xga: [1024, 768], uxga: [1600, 1200], qxga: [2048, 1536], sxga: [1280, 1024],
  qsxga: [2560, 2048], hsxga: [5120, 4096], wvga: [852, 480], wxga: [1366, 768], wsxga: [1600, 1024],
  wuxga: [1920, 1200], woxga: [2560, 1600], wqsxga: [3200, 2048], wquxga: [3840, 2400], whsxga: [6400, 4096],
  whuxga: [7680, 4800], cga: [320, 200], ega: [640, 350], hd480: [852, 480], hd720: [1280, 720],
  hd1080: [1920, 1080], '2k': [2048, 1080], '2kdci': [2048, 1080], '2kflat': [1998, 1080],
  '2kscope': [2048, 858], '4k': [4096, 2160], '4kdci': [4096, 2160], '4kflat': [3996, 2160],
  '4kscope': [4096, 1716], nhd: [640, 360], hqvga: [240, 160], wqvga: [400, 240], fwqvga: [432, 240],
  hvga: [480, 320], qhd: [960, 540], uhd2160: [3840, 2160], uhd4320: [7680, 4320],
};

/** Named frame rates (ffmpeg av_parse_video_rate). */
export const NAMED_RATES: Readonly<Record<string, number>> = {
  ntsc: 30000 / 1001, pal: 25, qntsc: 30000 / 1001, qpal: 25, sntsc: 30000 / 1001, spal: 25, film: 24,
  'ntsc-film': 24000 / 1001,
};
