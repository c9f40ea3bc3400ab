// The option allow-list: every ffmpeg output option a task's `options` array may contain, the kind
// of value it takes (null = a flag without value) and whether it takes a stream specifier. Pure data.
// Options not listed are refused; REFUSED_OPTIONS gives the reason for the ones people try.
import { LIMITS } from './limits.js';
import {
  BITSTREAM_FILTERS, CHANNEL_LAYOUTS, CODEC_FLAGS, COLORSPACES, COLOR_PRIMARIES, COLOR_RANGES, COLOR_TRCS,
  DEADLINES, DISPOSITIONS, MOVFLAGS, PIXEL_FORMATS, PRESETS, PROFILES, SAMPLE_FORMATS, SWS_FLAGS, TUNES,
} from './media-names.js';
import type { ValueRule } from './values.js';

export interface OptionRule {
  /** Name after the dash, without specifier: 'c' for -c:v. */
  name: string;
  /** What may follow ':' in the option name. */
  specifier: 'none' | 'stream' | 'metadata';
  /**
   * Other spellings. A string value is the specifier the alias stands for (-vcodec = -c:v) and such
   * an alias takes no specifier of its own; null means the same option (-codec = -c).
   */
  aliases?: Readonly<Record<string, string | null>>;
  /** null: a flag that takes no value. */
  value: ValueRule | null;
  /** May appear more than once with the same specifier (-map, -metadata). */
  repeatable?: boolean;
  what: string;
}

const int = (min: number, max: number): ValueRule => ({ type: 'int', min, max });
const num = (min: number, max: number): ValueRule => ({ type: 'number', min, max });
const oneOf = (values: readonly string[]): ValueRule => ({ type: 'enum', values });
const BOOL = oneOf(['0', '1']);
const BITRATE: ValueRule = { type: 'bitrate', max: LIMITS.maxBitrate };
const TIME: ValueRule = { type: 'duration', min: 0, max: LIMITS.maxDurationSec };
const FRAMES = int(1, LIMITS.maxFrames);
const THREADS = int(1, LIMITS.maxThreads);

function o(name: string, specifier: OptionRule['specifier'], value: ValueRule | null, what: string, extra: Partial<OptionRule> = {}): OptionRule {
  return { name, specifier, value, what, ...extra };
}

export const OPTIONS: readonly OptionRule[] = [
  // Stream selection and muxing.
  o('map', 'none', { type: 'map' }, 'select input streams or filtergraph outputs (0:v:0, -0:s, [out])', { repeatable: true }),
  o('f', 'none', { type: 'muxer' }, 'output format, from the muxer allow-list'),
  o('an', 'none', null, 'drop audio'),
  o('vn', 'none', null, 'drop video'),
  o('sn', 'none', null, 'drop subtitles'),
  o('dn', 'none', null, 'drop data streams'),
  o('shortest', 'none', null, 'stop at the shortest stream'),
  o('ss', 'none', TIME, 'start offset (output side: decode and discard until then)'),
  o('t', 'none', { type: 'duration', min: 0.000001, max: LIMITS.maxDurationSec }, 'duration to write'),
  o('to', 'none', TIME, 'stop time'),
  o('fs', 'none', { type: 'bytes', max: 5_000_000_000 }, 'stop when the file reaches this size'),
  o('frames', 'stream', FRAMES, 'number of frames to write', { aliases: { vframes: 'v', aframes: 'a' } }),
  o('metadata', 'metadata', { type: 'metadata' }, 'set a metadata tag (key=value, printable text)', { repeatable: true }),
  o('map_metadata', 'metadata', { type: 'map_metadata' }, 'copy metadata from an input (or -1 for none)', { repeatable: true }),
  o('map_chapters', 'none', { type: 'map_chapters' }, 'copy chapters from an input (or -1 for none)'),
  o('disposition', 'stream', { type: 'pattern', regex: `^(?:0|[+-]?(?:${DISPOSITIONS.join('|')})(?:[+-](?:${DISPOSITIONS.join('|')}))*)$`, expected: `0 or dispositions such as default, +forced-default` }, 'stream disposition flags'),
  o('movflags', 'none', { type: 'flags', values: MOVFLAGS }, 'mov/mp4 muxer flags (+faststart)'),
  o('frag_duration', 'none', int(0, 3_600_000_000), 'mp4 fragment duration in microseconds'),
  o('min_frag_duration', 'none', int(0, 3_600_000_000), 'mp4 minimum fragment duration in microseconds'),
  o('use_editlist', 'none', BOOL, 'mp4 edit list'),
  o('brand', 'none', { type: 'pattern', regex: '^[A-Za-z0-9 ]{4}$', expected: 'a four-character brand such as isom' }, 'mp4 major brand'),
  o('video_track_timescale', 'none', int(1, 10_000_000), 'mp4 video time scale'),
  o('id3v2_version', 'none', oneOf(['0', '3', '4']), 'mp3 ID3v2 version'),
  o('write_xing', 'none', BOOL, 'mp3 Xing header'),
  o('write_id3v1', 'none', BOOL, 'mp3 ID3v1 tag'),
  o('loop', 'none', int(-1, 65535), 'GIF/WebP play count written into the file (0 = loop forever when played); no effect on processing'),
  o('plays', 'none', int(0, 65535), 'APNG play count written into the file'),
  o('final_delay', 'none', int(-1, 65535), 'GIF delay after the last frame'),
  o('update', 'none', BOOL, 'image outputs: overwrite one file instead of a sequence'),
  o('start_number', 'none', int(0, 1_000_000_000), 'first number of a numbered image sequence'),
  o('avoid_negative_ts', 'none', oneOf(['auto', 'disabled', 'make_non_negative', 'make_zero', '-1', '0', '1', '2']), 'timestamp shifting'),
  o('max_muxing_queue_size', 'none', int(1, 65536), 'muxer queue length'),
  o('muxdelay', 'none', num(0, 10), 'maximum demux-decode delay in seconds'),
  o('muxpreload', 'none', num(0, 10), 'initial demux-decode delay in seconds'),
  o('copyts', 'none', null, 'keep input timestamps'),
  o('start_at_zero', 'none', null, 'with -copyts, start at zero'),
  o('copyinkf', 'none', null, 'copy leading non-keyframes'),
  o('timecode', 'none', { type: 'pattern', regex: '^\\d{2}:\\d{2}:\\d{2}[:;.]\\d{2}$', expected: 'a timecode such as 01:00:00:00' }, 'initial timecode'),

  // Codecs.
  o('c', 'stream', { type: 'codec' }, 'encoder, from the codec allow-list, or copy', { aliases: { codec: null, vcodec: 'v', acodec: 'a', scodec: 's' } }),
  o('b', 'stream', BITRATE, 'bitrate', { aliases: { ab: 'a' } }),
  o('maxrate', 'stream', BITRATE, 'maximum bitrate'),
  o('minrate', 'stream', BITRATE, 'minimum bitrate'),
  o('bufsize', 'stream', BITRATE, 'rate control buffer size'),
  o('crf', 'stream', num(0, 63), 'constant rate factor'),
  o('qp', 'stream', int(0, 255), 'constant quantiser'),
  o('q', 'stream', num(-1, 100), 'fixed quality scale', { aliases: { qscale: null, aq: 'a' } }),
  o('qmin', 'stream', int(-1, 69), 'minimum quantiser'),
  o('qmax', 'stream', int(-1, 1024), 'maximum quantiser'),
  o('preset', 'stream', { type: 'enum_or_int', values: PRESETS, min: -2, max: 13 }, 'encoder preset (x264/x265 names, libwebp names, SVT-AV1 numbers)'),
  o('tune', 'stream', { type: 'enum_or_int', values: TUNES, min: 0, max: 2 }, 'encoder tuning'),
  o('profile', 'stream', { type: 'enum_or_int', values: PROFILES, min: 0, max: 5 }, 'encoder profile'),
  o('level', 'stream', { type: 'pattern', regex: '^(?:[1-6](?:\\.[0-3])?|[1-6][0-3]|1b|auto)$', expected: 'a level such as 3.1, 4.0, 41 or auto' }, 'encoder level'),
  o('g', 'stream', int(-1, 100000), 'keyframe interval (GOP size)'),
  o('keyint_min', 'stream', int(-1, 100000), 'minimum keyframe interval'),
  o('bf', 'stream', int(-1, 16), 'maximum B-frames'),
  o('refs', 'stream', int(0, 16), 'reference frames'),
  o('sc_threshold', 'stream', int(-1000000, 1000000), 'scene change threshold'),
  o('force_key_frames', 'stream', { type: 'pattern', regex: '^(?!.*(?:while|root|taylor))(?:source|expr:[A-Za-z0-9_().,*+/<>=! -]{1,256}|(?:\\d{1,5}(?:\\.\\d{1,6})?|\\d{1,2}:\\d{2}:\\d{2}(?:\\.\\d{1,6})?)(?:,(?:\\d{1,5}(?:\\.\\d{1,6})?|\\d{1,2}:\\d{2}:\\d{2}(?:\\.\\d{1,6})?)){0,999})$', expected: 'source, expr:<expression> (without while, root or taylor) or a comma-separated list of times' }, 'force keyframes'),
  o('threads', 'stream', THREADS, 'encoder threads'),
  o('filter_threads', 'none', THREADS, 'filtergraph threads'),
  o('filter_complex_threads', 'none', THREADS, 'complex filtergraph threads'),
  o('flags', 'stream', { type: 'flags', values: CODEC_FLAGS }, 'codec flags (+global_header, +cgop)'),
  o('strict', 'stream', oneOf(['very', 'strict', 'normal', 'unofficial', 'experimental', '-2', '-1', '0', '1', '2']), 'standards compliance (experimental encoders)'),
  o('tag', 'stream', { type: 'pattern', regex: '^(?:[A-Za-z0-9_ ]{4}|0x[0-9A-Fa-f]{1,8})$', expected: 'a four-character code such as hvc1' }, 'codec tag', { aliases: { vtag: 'v', atag: 'a', stag: 's' } }),
  o('bsf', 'stream', { type: 'list', values: BITSTREAM_FILTERS }, 'bitstream filters from the allow-list'),
  o('deadline', 'stream', oneOf(DEADLINES), 'libvpx/libaom deadline'),
  o('quality', 'stream', { type: 'enum_or_int', values: DEADLINES, min: 0, max: 100 }, 'libvpx deadline or libwebp quality'),
  o('cpu-used', 'stream', int(-16, 16), 'libvpx/libaom speed'),
  o('speed', 'stream', int(-16, 16), 'libvpx speed'),
  o('row-mt', 'stream', BOOL, 'libvpx-vp9 row multithreading'),
  o('tile-columns', 'stream', int(0, 6), 'libvpx/libaom tile columns (log2)'),
  o('tile-rows', 'stream', int(0, 6), 'libvpx/libaom tile rows (log2)'),
  o('frame-parallel', 'stream', BOOL, 'libvpx frame parallel decoding'),
  o('auto-alt-ref', 'stream', int(0, 6), 'libvpx alternate reference frames'),
  o('lag-in-frames', 'stream', int(0, 64), 'libvpx/libaom lookahead'),
  o('arnr-maxframes', 'stream', int(0, 15), 'libvpx noise reduction frames'),
  o('arnr-strength', 'stream', int(0, 6), 'libvpx noise reduction strength'),
  o('aq-mode', 'stream', int(-1, 4), 'adaptive quantisation mode'),
  o('lossless', 'stream', BOOL, 'lossless mode (libvpx-vp9, libwebp)'),
  o('compression_level', 'stream', int(-1, 12), 'compression level (flac, png, libopus, libwebp)'),
  o('vbr', 'stream', { type: 'enum_or_int', values: ['on', 'off', 'constrained'], min: 0, max: 5 }, 'libopus VBR mode, AAC/fdk VBR quality'),
  o('application', 'stream', oneOf(['voip', 'audio', 'lowdelay']), 'libopus application'),
  o('frame_duration', 'stream', oneOf(['2.5', '5', '10', '20', '40', '60', '80', '100', '120']), 'libopus frame duration in ms'),
  o('packet_loss', 'stream', int(0, 100), 'libopus expected packet loss'),
  o('cutoff', 'stream', int(0, 100000), 'audio encoder cutoff frequency'),
  o('pred', 'stream', oneOf(['none', 'sub', 'up', 'avg', 'paeth', 'mixed']), 'png prediction'),
  o('huffman', 'stream', oneOf(['default', 'optimal']), 'mjpeg huffman tables'),

  // Video.
  o('r', 'stream', { type: 'rate', max: LIMITS.maxFrameRate }, 'frame rate'),
  o('s', 'stream', { type: 'size', max: LIMITS.maxDimension }, 'frame size'),
  o('aspect', 'stream', { type: 'pattern', regex: '^(?:\\d{1,5}[:/]\\d{1,5}|\\d{1,3}(?:\\.\\d{1,6})?)$', expected: 'an aspect ratio such as 16:9 or 1.7778' }, 'display aspect ratio'),
  o('pix_fmt', 'stream', oneOf(PIXEL_FORMATS), 'pixel format'),
  o('filter', 'stream', { type: 'filtergraph', graph: 'simple' }, 'filtergraph for the selected streams (-vf = -filter:v, -af = -filter:a)', { aliases: { vf: 'v', af: 'a' } }),
  o('filter_complex', 'none', { type: 'filtergraph', graph: 'complex' }, 'complex filtergraph (inputs by [index:stream])', { aliases: { lavfi: null } }),
  o('fps_mode', 'stream', oneOf(['passthrough', 'cfr', 'vfr', 'drop', 'auto', '-1', '0', '1', '2']), 'frame rate mode'),
  o('vsync', 'none', oneOf(['passthrough', 'cfr', 'vfr', 'drop', 'auto', '-1', '0', '1', '2']), 'frame rate mode (old name)'),
  o('sws_flags', 'none', { type: 'flags', values: SWS_FLAGS }, 'scaler flags'),
  o('color_primaries', 'stream', oneOf(COLOR_PRIMARIES), 'colour primaries'),
  o('color_trc', 'stream', oneOf(COLOR_TRCS), 'transfer characteristics'),
  o('colorspace', 'stream', oneOf(COLORSPACES), 'colour space'),
  o('color_range', 'stream', oneOf(COLOR_RANGES), 'colour range'),

  // Audio.
  o('ar', 'stream', int(1000, LIMITS.maxSampleRate), 'sample rate'),
  o('ac', 'stream', int(1, LIMITS.maxChannels), 'channel count'),
  o('sample_fmt', 'stream', oneOf(SAMPLE_FORMATS), 'sample format'),
  o('ch_layout', 'stream', oneOf(CHANNEL_LAYOUTS), 'channel layout', { aliases: { channel_layout: null } }),
];

/** Options people try that are refused, with the reason the error gives. */
export const REFUSED_OPTIONS: Readonly<Record<string, string>> = {
  i: 'inputs come from task.inputs',
  y: 'the service manages output files',
  n: 'the service manages output files',
  attach: 'it reads a file',
  dump_attachment: 'it writes files',
  filter_script: 'it reads a file',
  filter_complex_script: 'it reads a file',
  vstats: 'it writes a file',
  vstats_file: 'it writes a file',
  vstats_version: 'it belongs to -vstats',
  pass: 'two-pass encoding writes log files; use -crf or a bitrate',
  passlogfile: 'it writes files',
  progress: 'it writes to a file or URL',
  report: 'it writes a log file',
  sdp_file: 'it writes a file',
  stats: 'progress output is managed by the service',
  nostats: 'progress output is managed by the service',
  stats_period: 'progress output is managed by the service',
  loglevel: 'logging is managed by the service',
  v: 'logging is managed by the service',
  hide_banner: 'logging is managed by the service',
  nostdin: 'the service manages standard input',
  stdin: 'the service manages standard input',
  protocol_whitelist: 'protocols are fixed by the service',
  protocol_blacklist: 'protocols are fixed by the service',
  protocol_opts: 'protocols are fixed by the service',
  headers: 'network options are not available',
  method: 'network options are not available',
  user_agent: 'network options are not available',
  cookies: 'network options are not available',
  safe: 'it allows unsafe paths in concat lists',
  stream_loop: 'it can loop forever',
  re: 'input options are set by the service',
  readrate: 'input options are set by the service',
  sseof: 'input options are set by the service',
  itsoffset: 'input options are set by the service',
  pre: 'it reads a preset file',
  fpre: 'it reads a preset file',
  vpre: 'it reads a preset file',
  apre: 'it reads a preset file',
  spre: 'it reads a preset file',
  x264opts: 'encoder parameter strings can name stats files; use the separate options',
  'x264-params': 'encoder parameter strings can name stats files; use the separate options',
  'x265-params': 'encoder parameter strings can name stats files; use the separate options',
  'svtav1-params': 'encoder parameter strings can name files; use the separate options',
  'aom-params': 'encoder parameter strings can name files; use the separate options',
  'rav1e-params': 'encoder parameter strings can name files; use the separate options',
  'dav1d-params': 'decoder parameters are not available',
  init_hw_device: 'hardware devices are not available',
  filter_hw_device: 'hardware devices are not available',
  hwaccel: 'hardware devices are not available',
  hwaccel_device: 'hardware devices are not available',
  benchmark: 'not available',
  benchmark_all: 'not available',
  dump: 'not available',
  hex: 'not available',
  max_alloc: 'not available',
  cpuflags: 'not available',
  cpucount: 'not available',
  strftime: 'output names are fixed by the task',
  frame_pts: 'output names are fixed by the task',
  segment_list: 'it writes a file',
  hls_segment_filename: 'it writes files',
  hls_key_info_file: 'it reads a file',
  master_pl_name: 'it writes a file',
  ignore_unknown: 'not available',
  copy_unknown: 'not available',
};

const byName = new Map<string, { rule: OptionRule; impliedSpec: string | null }>();
for (const rule of OPTIONS) {
  byName.set(rule.name, { rule, impliedSpec: null });
  for (const [alias, spec] of Object.entries(rule.aliases ?? {})) byName.set(alias, { rule, impliedSpec: spec });
}

/** The rule for an option name or alias (no dash, no specifier), with the specifier an alias implies. */
export function lookupOption(name: string): { rule: OptionRule; impliedSpec: string | null } | undefined {
  return byName.get(name);
}
