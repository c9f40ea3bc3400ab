// The filter allow-list: every filter a -vf/-af/-filter/-filter_complex graph may use, the options
// each accepts (aliases included) and the order ffmpeg assigns bare values in (checked against
// `ffmpeg -h filter=<name>` of ffmpeg 5.1). Pure data.
//
// Left out on purpose (refused as unknown): filters that open files or URLs (movie, amovie,
// subtitles, ass, drawtext, lut1d, lut3d, haldclut with files, ladspa, lv2, frei0r, dnn_*, sr,
// vidstabdetect/transform, signature, psnr/ssim/vmaf/identity with stats files, metadata/ametadata,
// deshake, ...), that take commands from outside (sendcmd, asendcmd, zmq, azmq), that buffer or
// repeat without bound (loop, aloop, reverse, areverse, tpad, apad, zoompan), and sources that
// invent input (color, testsrc, anullsrc, sine, ...) - inputs come from the task.
import { LIMITS } from './limits.js';

export type FilterValueKind =
  /** Free text or an expression; checked for control characters and paths, URLs, protocols. */
  | { kind: 'text' }
  /** A width or height: a number up to 8192 or a bounded expression (see dimension.ts). */
  | { kind: 'dimension' }
  /** A frame size WxH or a size name, each side up to `max`. */
  | { kind: 'size'; max: number }
  /** A grid such as tile=4x4, each side up to `max`. */
  | { kind: 'grid'; max: number }
  /** A frame rate: number, fraction or name, above 0 and up to 240. */
  | { kind: 'rate' }
  /** A plain integer in [min, max]. */
  | { kind: 'int'; min: number; max: number };

export type FilterMedia = 'video' | 'audio' | 'audio-to-video' | 'video-or-audio';

export interface FilterRule {
  media: FilterMedia;
  /** Option names that bare values fill, in ffmpeg's order; more bare values are refused. */
  positional: readonly string[];
  /** Allowed option names (aliases included) and their value kinds. 'enable' is allowed on all. */
  options: Readonly<Record<string, FilterValueKind>>;
  purpose: string;
}

const TEXT: FilterValueKind = { kind: 'text' };
const DIMENSION: FilterValueKind = { kind: 'dimension' };
const RATE: FilterValueKind = { kind: 'rate' };
const SIZE: FilterValueKind = { kind: 'size', max: LIMITS.maxDimension };
const GRID: FilterValueKind = { kind: 'grid', max: 32 };
const int = (min: number, max: number): FilterValueKind => ({ kind: 'int', min, max });
const PADS = int(1, LIMITS.maxFilterPads);
const INPUTS = int(2, LIMITS.maxFilterPads);

/** Options from a space-separated list, all 'text' unless overridden. */
function opts(names: string, special: Record<string, FilterValueKind> = {}): Record<string, FilterValueKind> {
  const out: Record<string, FilterValueKind> = {};
  for (const n of names.split(/\s+/).filter(Boolean)) out[n] = TEXT;
  return { ...out, ...special };
}

const list = (s: string) => s.split(/\s+/).filter(Boolean);

function rule(media: FilterMedia, positional: string, options: Record<string, FilterValueKind>, purpose: string): FilterRule {
  return { media, positional: list(positional), options, purpose };
}

const BIQUAD = 'frequency f width_type t width w gain g poles p mix m channels c normalize n transform a precision r blocksize b';

export const FILTERS: Readonly<Record<string, FilterRule>> = {
  // Video: geometry and timing.
  scale: rule('video', 'w h flags', opts(
    'flags interl in_color_matrix out_color_matrix in_range out_range in_v_chr_pos in_h_chr_pos out_v_chr_pos out_h_chr_pos force_original_aspect_ratio force_divisible_by param0 param1 eval',
    { w: DIMENSION, width: DIMENSION, h: DIMENSION, height: DIMENSION },
  ), 'resize'),
  fps: rule('video', 'fps start_time round', opts('start_time round eof_action', { fps: RATE }), 'change the frame rate'),
  crop: rule('video', 'out_w out_h x y keep_aspect exact', opts('out_w w out_h h x y keep_aspect exact'), 'cut out a rectangle'),
  // No `aspect`: it sets the padded size from a ratio, outside the size bound (aspect=1/2000 made 64x128000).
  pad: rule('video', 'width height x y color', opts('x y color eval', { width: DIMENSION, w: DIMENSION, height: DIMENSION, h: DIMENSION }), 'add borders'),
  trim: rule('video', 'start end', opts('start starti end endi start_pts end_pts duration durationi start_frame end_frame'), 'keep a time range'),
  setpts: rule('video', 'expr', opts('expr'), 'change timestamps'),
  format: rule('video', 'pix_fmts', opts('pix_fmts color_spaces color_ranges'), 'convert the pixel format'),
  transpose: rule('video', 'dir passthrough', opts('dir passthrough'), 'rotate by 90 degrees'),
  hflip: rule('video', '', {}, 'mirror horizontally'),
  vflip: rule('video', '', {}, 'mirror vertically'),
  rotate: rule('video', 'angle out_w out_h fillcolor bilinear', opts('angle a fillcolor c bilinear', { out_w: DIMENSION, ow: DIMENSION, out_h: DIMENSION, oh: DIMENSION }), 'rotate by any angle'),
  overlay: rule('video', 'x y', opts('x y eof_action eval shortest format repeatlast alpha'), 'put one video on another (watermark)'),
  split: rule('video', 'outputs', { outputs: PADS }, 'copy a stream to several pads'),
  fade: rule('video', 'type start_frame nb_frames', opts('type t start_frame s nb_frames n alpha start_time st duration d color c'), 'fade in or out'),
  drawbox: rule('video', 'x y width height color thickness', opts('x y width w height h color c thickness t replace box_source'), 'draw a rectangle'),
  drawgrid: rule('video', 'x y width height color thickness', opts('x y width w height h color c thickness t replace'), 'draw a grid'),
  thumbnail: rule('video', 'n', { n: int(1, 500) }, 'pick the most representative frame of each batch'),
  select: rule('video', 'expr outputs', opts('expr e', { outputs: PADS, n: PADS }), 'keep frames matching an expression'),
  tile: rule('video', 'layout nb_frames margin padding color', opts('color overlap init_padding', { layout: GRID, nb_frames: int(0, 1024), margin: int(0, 1024), padding: int(0, 1024) }), 'put frames side by side (contact sheet)'),
  palettegen: rule('video', 'max_colors reserve_transparent', opts('reserve_transparent transparency_color stats_mode use_alpha', { max_colors: int(2, 256) }), 'compute a GIF palette'),
  // paletteuse: not debug_kdtree, which writes a file.
  paletteuse: rule('video', 'dither bayer_scale diff_mode', opts('dither bayer_scale diff_mode new alpha_threshold use_alpha color_search'), 'apply a GIF palette'),
  setsar: rule('video', 'sar max', opts('sar ratio r max'), 'set the sample aspect ratio'),
  setdar: rule('video', 'dar max', opts('dar ratio r max'), 'set the display aspect ratio'),
  framestep: rule('video', 'step', { step: int(1, 100000) }, 'keep every Nth frame'),
  framerate: rule('video', 'fps', opts('interp_start interp_end scene flags', { fps: RATE }), 'change the frame rate by blending'),
  minterpolate: rule('video', 'fps', opts('mi_mode mc_mode me_mode me mb_size search_param vsbmc scd scd_threshold', { fps: RATE }), 'change the frame rate by motion interpolation'),
  mpdecimate: rule('video', '', opts('max hi lo frac'), 'drop near-duplicate frames'),
  decimate: rule('video', '', opts('dupthresh scthresh blockx blocky ppsrc chroma', { cycle: int(2, 25) }), 'remove telecine duplicates'),
  hstack: rule('video', 'inputs shortest', opts('shortest', { inputs: INPUTS }), 'stack videos side by side'),
  vstack: rule('video', 'inputs shortest', opts('shortest', { inputs: INPUTS }), 'stack videos vertically'),
  xstack: rule('video', 'inputs layout', opts('layout shortest fill', { inputs: INPUTS, grid: GRID }), 'arrange videos in a mosaic'),
  xfade: rule('video', 'transition duration offset', opts('transition duration offset expr'), 'cross-fade two videos'),
  // Video: interlacing and fields.
  yadif: rule('video', 'mode parity deint', opts('mode parity deint'), 'deinterlace'),
  bwdif: rule('video', 'mode parity deint', opts('mode parity deint'), 'deinterlace'),
  fieldorder: rule('video', 'order', opts('order'), 'set field order'),
  setfield: rule('video', 'mode', opts('mode'), 'mark field order'),
  // Video: colour and sharpness.
  eq: rule('video', 'contrast brightness saturation gamma', opts('contrast brightness saturation gamma gamma_r gamma_g gamma_b gamma_weight eval'), 'brightness, contrast, saturation, gamma'),
  hue: rule('video', 'h s', opts('h s H b'), 'hue and saturation'),
  colorchannelmixer: rule('video', 'rr rg rb ra gr gg gb ga br bg bb ba ar ag ab aa', opts('rr rg rb ra gr gg gb ga br bg bb ba ar ag ab aa pc pa'), 'mix colour channels'),
  colorspace: rule('video', '', opts('all space range primaries trc format fast dither wpadapt iall ispace irange iprimaries itrc'), 'convert colour space'),
  // curves: not psfile (reads a file) or plot (writes one).
  curves: rule('video', 'preset master red green blue all', opts('preset master m red r green g blue b all'), 'colour curves'),
  lutyuv: rule('video', '', opts('c0 c1 c2 c3 y u v r g b a'), 'per-pixel lookup by expression'),
  lutrgb: rule('video', '', opts('c0 c1 c2 c3 y u v r g b a'), 'per-pixel lookup by expression'),
  negate: rule('video', '', opts('components negate_alpha'), 'invert colours'),
  vignette: rule('video', 'angle x0 y0', opts('angle a x0 y0 mode eval dither aspect'), 'vignette'),
  chromakey: rule('video', 'color similarity blend yuv', opts('color similarity blend yuv'), 'make a colour transparent (YUV)'),
  colorkey: rule('video', 'color similarity blend', opts('color similarity blend'), 'make a colour transparent (RGB)'),
  unsharp: rule('video', 'luma_msize_x luma_msize_y luma_amount chroma_msize_x chroma_msize_y chroma_amount', opts('luma_msize_x lx luma_msize_y ly luma_amount la chroma_msize_x cx chroma_msize_y cy chroma_amount ca alpha_msize_x ax alpha_msize_y ay alpha_amount aa'), 'sharpen or blur'),
  boxblur: rule('video', 'luma_radius luma_power chroma_radius chroma_power alpha_radius alpha_power', opts('luma_radius lr luma_power lp chroma_radius cr chroma_power cp alpha_radius ar alpha_power ap'), 'box blur'),
  gblur: rule('video', 'sigma steps planes sigmaV', opts('sigma steps planes sigmaV'), 'gaussian blur'),
  avgblur: rule('video', 'sizeX planes sizeY', opts('sizeX planes sizeY'), 'average blur'),
  smartblur: rule('video', 'luma_radius luma_strength luma_threshold chroma_radius chroma_strength chroma_threshold', opts('luma_radius lr luma_strength ls luma_threshold lt chroma_radius cr chroma_strength cs chroma_threshold ct'), 'blur preserving edges'),
  hqdn3d: rule('video', 'luma_spatial chroma_spatial luma_tmp chroma_tmp', opts('luma_spatial chroma_spatial luma_tmp chroma_tmp'), 'denoise'),
  deband: rule('video', '', opts('1thr 2thr 3thr 4thr range r direction d blur b coupling c'), 'remove banding'),
  geq: rule('video', 'lum_expr', opts('lum_expr lum cb_expr cb cr_expr cr alpha_expr a red_expr r green_expr g blue_expr b interpolation i'), 'per-pixel expression'),
  blend: rule('video', '', opts('c0_mode c1_mode c2_mode c3_mode all_mode c0_expr c1_expr c2_expr c3_expr all_expr c0_opacity c1_opacity c2_opacity c3_opacity all_opacity eof_action shortest repeatlast'), 'blend two videos'),
  alphamerge: rule('video', '', opts('eof_action shortest repeatlast'), 'use a second video as alpha'),
  alphaextract: rule('video', '', {}, 'alpha channel as grey video'),
  // Video: analysis (results go to ffmpeg's log only).
  blackdetect: rule('video', '', opts('d black_min_duration picture_black_ratio_th pic_th pixel_black_th pix_th'), 'detect black intervals'),
  cropdetect: rule('video', 'limit round reset', opts('limit round reset skip reset_count max_outliers'), 'detect borders'),
  null: rule('video', '', {}, 'pass video through'),
  copy: rule('video', '', {}, 'copy video frames'),

  // Audio.
  atrim: rule('audio', 'start end', opts('start starti end endi start_pts end_pts duration durationi start_sample end_sample'), 'keep a time range'),
  asetpts: rule('audio', 'expr', opts('expr'), 'change timestamps'),
  volume: rule('audio', 'volume', opts('volume precision eval replaygain replaygain_preamp replaygain_noclip'), 'change volume'),
  aresample: rule('audio', 'sample_rate', opts(
    'async first_pts min_comp min_hard_comp comp_duration max_soft_comp resampler osf out_sample_fmt ocl out_channel_layout ochl out_chlayout dither_method filter_size phase_shift cutoff precision cheby linear_interp exact_rational matrix_encoding',
    { sample_rate: int(1, 384000), osr: int(1, 384000), out_sample_rate: int(1, 384000) },
  ), 'resample'),
  aformat: rule('audio', 'sample_fmts sample_rates channel_layouts', opts('sample_fmts f sample_rates r channel_layouts cl'), 'constrain audio format'),
  asetrate: rule('audio', 'sample_rate', { sample_rate: int(1000, 384000), r: int(1000, 384000) }, 'change the sample rate without resampling'),
  loudnorm: rule('audio', 'I LRA TP', opts('I i LRA lra TP tp measured_I measured_i measured_LRA measured_lra measured_TP measured_tp measured_thresh offset linear dual_mono print_format'), 'EBU R128 loudness normalisation'),
  dynaudnorm: rule('audio', '', opts('framelen f gausssize g peak p maxgain m targetrms r coupling n correctdc c altboundary b compress s threshold t channels h overlap o'), 'dynamic normalisation'),
  acompressor: rule('audio', '', opts('level_in mode threshold ratio attack release makeup knee link detection level_sc mix'), 'compressor'),
  alimiter: rule('audio', '', opts('level_in level_out limit attack release asc asc_level level latency'), 'limiter'),
  amix: rule('audio', 'inputs duration dropout_transition', opts('duration dropout_transition weights normalize', { inputs: INPUTS }), 'mix audio streams'),
  amerge: rule('audio', 'inputs', { inputs: INPUTS }, 'merge streams into one multichannel stream'),
  pan: rule('audio', 'args', opts('args'), 'remix channels'),
  channelsplit: rule('audio', 'channel_layout channels', opts('channel_layout channels'), 'split channels into streams'),
  join: rule('audio', 'inputs channel_layout map', opts('channel_layout map', { inputs: INPUTS }), 'join streams into channels'),
  atempo: rule('audio', 'tempo', opts('tempo'), 'change speed keeping pitch'),
  afade: rule('audio', 'type start_sample nb_samples', opts('type t start_sample ss nb_samples ns start_time st duration d curve c'), 'fade in or out'),
  acrossfade: rule('audio', '', opts('nb_samples ns duration d overlap o curve1 c1 curve2 c2'), 'cross-fade two audio streams'),
  asplit: rule('audio', 'outputs', { outputs: PADS }, 'copy a stream to several pads'),
  aselect: rule('audio', 'expr outputs', opts('expr e', { outputs: PADS, n: PADS }), 'keep frames matching an expression'),
  silenceremove: rule('audio', 'start_periods start_duration start_threshold', opts('start_periods start_duration start_threshold start_silence start_mode stop_periods stop_duration stop_threshold stop_silence stop_mode detection window'), 'remove silence'),
  silencedetect: rule('audio', '', opts('n noise d duration mono m'), 'detect silence (log only)'),
  volumedetect: rule('audio', '', {}, 'measure volume (log only)'),
  highpass: rule('audio', 'frequency', opts(BIQUAD), 'high-pass filter'),
  lowpass: rule('audio', 'frequency', opts(BIQUAD), 'low-pass filter'),
  equalizer: rule('audio', 'frequency', opts(BIQUAD), 'peaking equaliser'),
  bass: rule('audio', 'frequency', opts(BIQUAD), 'bass boost or cut'),
  treble: rule('audio', 'frequency', opts(BIQUAD), 'treble boost or cut'),
  aecho: rule('audio', 'in_gain out_gain delays decays', opts('in_gain out_gain delays decays'), 'echo'),
  adelay: rule('audio', 'delays all', opts('delays all'), 'delay channels'),
  afftdn: rule('audio', '', opts('noise_reduction nr noise_floor nf noise_type nt band_noise bn residual_floor rf track_noise tn track_residual tr output_mode om adaptivity ad floor_offset fo noise_link nl band_multiplier bm sample_noise sn gain_smooth gs'), 'denoise'),
  anull: rule('audio', '', {}, 'pass audio through'),
  acopy: rule('audio', '', {}, 'copy audio frames'),

  // Audio to video.
  showwaves: rule('audio-to-video', 'size mode', opts('mode n split_channels colors scale draw', { size: SIZE, s: SIZE, rate: RATE, r: RATE }), 'waveform video'),
  showwavespic: rule('audio-to-video', 'size', opts('split_channels colors scale draw filter', { size: SIZE, s: SIZE }), 'waveform image'),
  showspectrumpic: rule('audio-to-video', 'size', opts('mode color scale fscale saturation win_func orientation gain legend rotation start stop drange limit opacity', { size: SIZE, s: SIZE }), 'spectrum image'),

  // Both.
  concat: rule('video-or-audio', 'n v a', { n: int(1, 100), v: int(0, 8), a: int(0, 8), unsafe: TEXT }, 'join segments (the filter; the concat demuxer and protocol are not available)'),
};

/** Options every filter accepts (libavfilter's own): 'enable' is the timeline expression. */
export const GENERIC_FILTER_OPTIONS: Readonly<Record<string, FilterValueKind>> = { enable: TEXT };
