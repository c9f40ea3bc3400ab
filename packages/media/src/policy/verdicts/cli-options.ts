// ffmpeg's own command-line options (fftools/ffmpeg_opt.c of 5.1), each judged: where it may
// stand (an input's options, an output's, or either for global ones), what value it takes, and
// whether it is allowed, ignored (the service does it already) or refused. Options not listed
// here are looked up as AVOptions of the chosen codecs and formats (read-options.ts), as ffmpeg
// does. A test checks that every option `ffmpeg -h full` lists is judged here.
import { MAX_FILE_BYTES } from '@media/platform';
import { LIMITS } from '../limits.js';

export type CliValue =
  /** No value (OPT_BOOL without HAS_ARG, or a switch). */
  | { kind: 'none' }
  /** av_parse_time: seconds as [-][HH:]MM:SS[.m] or S[.m][s|ms|us]. */
  | { kind: 'time'; min: number; max: number }
  /** parse_number_or_die: av_strtod spellings (48k, 1e3, 0x10), whole string, no expression. */
  | { kind: 'number'; min: number; max: number; integer?: boolean }
  | { kind: 'rate' }
  | { kind: 'size' }
  | { kind: 'aspect' }
  /** An encoder (outputs) or decoder (inputs), or a codec name meaning ffmpeg's default one, or copy. */
  | { kind: 'codec' }
  /** A muxer (outputs) or demuxer (inputs). */
  | { kind: 'format' }
  | { kind: 'map' }
  | { kind: 'map_metadata' }
  | { kind: 'map_chapters' }
  | { kind: 'metadata' }
  | { kind: 'graph'; graph: 'simple' | 'complex' }
  /** A comma-separated list of bitstream filters with their options (name=k=v:k=v). */
  | { kind: 'bsf' }
  | { kind: 'pix_fmt' }
  | { kind: 'sample_fmt' }
  | { kind: 'ch_layout' }
  | { kind: 'enum'; values: readonly string[] }
  | { kind: 'pattern'; regex: RegExp; expected: string }
  /** Text of a small syntax that never names a file: checked for paths, URLs and protocols. */
  | { kind: 'token' }
  /** Names a task input used as a side file (-attach). */
  | { kind: 'side_file' }
  /** Checked as this option of AVCodecContext checks it (-b:v 2M is the codec option b). */
  | { kind: 'av'; option: string }
  /** -force_key_frames: times, 'source', or expr:<expression> (evaluated per frame: no while/root/taylor). */
  | { kind: 'keyframes' };

export interface CliRule {
  name: string;
  /** Where it may stand; 'global' options act on the whole run wherever they stand (ffmpeg hoists them). */
  where: 'input' | 'output' | 'both' | 'global';
  value: CliValue;
  /** OPT_BOOL: -noNAME is the same option switched off. */
  bool?: true;
  /** OPT_SPEC: takes a stream specifier (-c:v); 'metadata': a metadata specifier (-metadata:s:a). */
  specifier?: 'stream' | 'metadata';
  /** Another spelling of `of`, standing for the specifier `spec` (-vcodec = -c:v). */
  alias?: { of: string; spec: string | null };
  /** May appear more than once for the same specifier. */
  repeatable?: true;
  /** Accepted and left out of the command: the service already does what it asks. */
  ignored?: string;
  refuse?: { reason: string; instead?: string };
  what: string;
}

const NONE: CliValue = { kind: 'none' };
const TIME: CliValue = { kind: 'time', min: 0, max: LIMITS.maxDurationSec };
const num = (min: number, max: number, integer = false): CliValue => ({ kind: 'number', min, max, ...(integer ? { integer } : {}) });
const int = (min: number, max: number): CliValue => num(min, max, true);
const enumOf = (...values: string[]): CliValue => ({ kind: 'enum', values });
const TOKEN: CliValue = { kind: 'token' };
const FPS_MODES = ['passthrough', 'cfr', 'vfr', 'drop', 'auto', '-1', '0', '1', '2'];

type Partial2 = Partial<Omit<CliRule, 'name' | 'where' | 'value' | 'what'>>;
const r = (name: string, where: CliRule['where'], value: CliValue, what: string, extra: Partial2 = {}): CliRule => ({
  name,
  where,
  value,
  what,
  ...extra,
});
const ignore = (name: string, value: CliValue, what: string, because: string, extra: Partial2 = {}): CliRule =>
  r(name, 'global', value, what, { ignored: because, ...extra });
const no = (
  name: string,
  where: CliRule['where'],
  value: CliValue,
  what: string,
  reason: string,
  instead?: string,
  extra: Partial2 = {},
): CliRule => r(name, where, value, what, { refuse: { reason, ...(instead ? { instead } : {}) }, ...extra });

const LOGGING = 'the service sets logging itself (errors come back in the job error)';
const READS = 'it reads a file the service did not stage';
const WRITES = 'it writes a file outside the task outputs';
const HARDWARE = 'it needs a hardware device, which the service does not have';
const SOFTWARE = 'leave it out: the service decodes, filters and encodes in software';
const VSTATS_INSTEAD = 'for quality figures use an analysis output with psnr or ssim (-f null, see docs/ffmpeg-policy.md)';
const PACKETS_INSTEAD = "to see a file's packets, use POST /ffprobe/analyze";
const HELP = 'it prints information and exits';
const PRESET_FILE = 'it reads a preset file';

export const CLI_OPTIONS: readonly CliRule[] = [
  // Input and output files and formats.
  no('i', 'both', TOKEN, 'input file', 'inputs come from task.inputs', 'add the file to task.inputs'),
  r('f', 'both', { kind: 'format' }, 'force the format: a demuxer for an input, a muxer for an output'),
  r('c', 'both', { kind: 'codec' }, 'codec: a decoder for an input, an encoder (or copy) for an output', { specifier: 'stream' }),
  r('codec', 'both', { kind: 'codec' }, 'same as -c', { specifier: 'stream', alias: { of: 'c', spec: null } }),
  r('vcodec', 'both', { kind: 'codec' }, 'same as -c:v', { alias: { of: 'c', spec: 'v' } }),
  r('acodec', 'both', { kind: 'codec' }, 'same as -c:a', { alias: { of: 'c', spec: 'a' } }),
  r('scodec', 'both', { kind: 'codec' }, 'same as -c:s', { alias: { of: 'c', spec: 's' } }),
  r('dcodec', 'both', { kind: 'codec' }, 'same as -c:d', { alias: { of: 'c', spec: 'd' } }),

  // Timing and seeking.
  r('ss', 'both', TIME, 'start time: an input seeks there, an output decodes and discards until then'),
  r('sseof', 'input', { kind: 'time', min: -LIMITS.maxDurationSec, max: 0 }, 'start time counted back from the end of the input'),
  r('t', 'both', { kind: 'time', min: 0.000001, max: LIMITS.maxDurationSec }, 'duration to read (input) or write (output)'),
  r('to', 'both', TIME, 'stop time'),
  r('itsoffset', 'input', { kind: 'time', min: -LIMITS.maxDurationSec, max: LIMITS.maxDurationSec }, 'shift the input timestamps'),
  r('itsscale', 'input', num(0.001, 1000), 'scale the input timestamps', { specifier: 'stream' }),
  r('accurate_seek', 'input', NONE, 'decode from the previous keyframe to the exact -ss point (default on)', { bool: true }),
  r('seek_timestamp', 'input', int(0, 1), 'with -ss, seek by timestamp'),
  r('stream_loop', 'input', int(-1, 10000), 'play the input this many more times (-1: without end, then the task needs a duration)'),
  r('re', 'input', NONE, 'read the input at its native rate (as slow as the media is long; the job time limit applies)', { bool: true }),
  // Below 1 the run reads slower than real time: it holds a slot while making almost no headway
  // (plan/inputs.ts refuses 0 < rate < 1; 0 is ffmpeg's "no pacing").
  r('readrate', 'input', num(0, 1000), 'read the input at this multiple of its native rate: 0 (not paced) or at least 1'),
  r('isync', 'input', int(-1, LIMITS.maxInputs - 1), 'the input index to sync this input to'),
  r('fs', 'output', num(1, MAX_FILE_BYTES, true), 'stop writing at this file size in bytes'),
  r('shortest', 'output', NONE, 'stop when the shortest stream of the output ends', { bool: true }),
  r('frames', 'output', int(0, LIMITS.maxFrames), 'number of frames to write', { specifier: 'stream' }),
  r('vframes', 'output', int(0, LIMITS.maxFrames), 'same as -frames:v', { alias: { of: 'frames', spec: 'v' } }),
  r('aframes', 'output', int(0, LIMITS.maxFrames), 'same as -frames:a', { alias: { of: 'frames', spec: 'a' } }),
  r('dframes', 'output', int(0, LIMITS.maxFrames), 'same as -frames:d', { alias: { of: 'frames', spec: 'd' } }),
  r(
    'timestamp',
    'output',
    {
      kind: 'pattern',
      regex: /^(?:now|\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}:\d{2}(?:\.\d{1,6})?Z?)?|\d{8}(?:T\d{6})?)$/,
      expected: "'now' or a date such as 2024-01-31T12:00:00Z",
    },
    'recording timestamp written into the file',
  ),

  // Streams and metadata.
  r('map', 'output', { kind: 'map' }, 'select input streams or filter graph outputs', { repeatable: true }),
  r('map_metadata', 'output', { kind: 'map_metadata' }, 'copy metadata from an input (-1: none)', {
    specifier: 'metadata',
    repeatable: true,
  }),
  r('map_chapters', 'output', { kind: 'map_chapters' }, 'copy chapters from an input (-1: none)'),
  r(
    'map_channel',
    'output',
    {
      kind: 'pattern',
      regex: /^(?:-1|\d{1,3}\.\d{1,3}\.\d{1,3})(?::\d{1,3}\.\d{1,3})?$/,
      expected: 'file.stream.channel[:outfile.outstream] or -1',
    },
    'map one audio channel (old; prefer -af pan)',
    { repeatable: true },
  ),
  r('metadata', 'output', { kind: 'metadata' }, 'set a metadata tag (key=value)', { specifier: 'metadata', repeatable: true }),
  r('program', 'output', TOKEN, 'add a program (title=...:st=N...)', { repeatable: true }),
  r(
    'disposition',
    'output',
    {
      kind: 'pattern',
      regex: /^(?:0|[+-]?[a-z_]{1,32}(?:[+-][a-z_]{1,32})*)$/,
      expected: 'dispositions such as default, 0 or +forced-default',
    },
    'stream disposition flags',
    { specifier: 'stream' },
  ),
  r('discard', 'input', enumOf('none', 'default', 'noref', 'bidir', 'nointra', 'nokey', 'all'), 'discard input packets', {
    specifier: 'stream',
  }),
  r(
    'streamid',
    'output',
    { kind: 'pattern', regex: /^\d{1,3}:\d{1,10}$/, expected: 'streamIndex:value' },
    'stream id written into the file',
    { repeatable: true },
  ),
  r(
    'target',
    'output',
    {
      kind: 'pattern',
      regex: /^(?:(?:pal|ntsc|film)-)?(?:vcd|svcd|dvd|dv|dv50)$/,
      expected: 'vcd, svcd, dvd, dv or dv50, optionally prefixed pal-, ntsc- or film-',
    },
    'target file type (sets many options)',
  ),
  r('vn', 'both', NONE, 'no video', { bool: true }),
  r('an', 'both', NONE, 'no audio', { bool: true }),
  r('sn', 'both', NONE, 'no subtitles', { bool: true }),
  r('dn', 'both', NONE, 'no data streams', { bool: true }),
  r('attach', 'output', { kind: 'side_file' }, 'attach a file (a font for subtitles) to a Matroska output; it names a task input', {
    repeatable: true,
  }),
  no(
    'dump_attachment',
    'input',
    TOKEN,
    'extract attachments into files',
    'it writes files outside the task outputs',
    'copy the attachment into an output: -map 0:t -c copy out.mkv',
    { specifier: 'stream' },
  ),

  // Codecs.
  r('b', 'output', { kind: 'av', option: 'b' }, 'bitrate (-b:v, -b:a)', { specifier: 'stream' }),
  r('ab', 'output', { kind: 'av', option: 'b' }, 'same as -b:a', { alias: { of: 'b', spec: 'a' } }),
  r('q', 'output', num(-1, 1000), 'fixed quality scale', { specifier: 'stream' }),
  r('qscale', 'output', num(-1, 1000), 'same as -q', { specifier: 'stream', alias: { of: 'q', spec: null } }),
  r('aq', 'output', num(-1, 1000), 'same as -q:a', { alias: { of: 'q', spec: 'a' } }),
  r('profile', 'output', TOKEN, 'encoder profile', { specifier: 'stream' }),
  r(
    'tag',
    'both',
    { kind: 'pattern', regex: /^(?:[ -~]{4}|0x[0-9A-Fa-f]{1,8}|\d{1,10})$/, expected: 'a four-character code such as hvc1' },
    'codec tag (fourcc)',
    { specifier: 'stream' },
  ),
  r(
    'vtag',
    'both',
    { kind: 'pattern', regex: /^(?:[ -~]{4}|0x[0-9A-Fa-f]{1,8}|\d{1,10})$/, expected: 'a four-character code such as hvc1' },
    'same as -tag:v',
    { alias: { of: 'tag', spec: 'v' } },
  ),
  r(
    'atag',
    'output',
    { kind: 'pattern', regex: /^(?:[ -~]{4}|0x[0-9A-Fa-f]{1,8}|\d{1,10})$/, expected: 'a four-character code' },
    'same as -tag:a',
    { alias: { of: 'tag', spec: 'a' } },
  ),
  r(
    'stag',
    'output',
    { kind: 'pattern', regex: /^(?:[ -~]{4}|0x[0-9A-Fa-f]{1,8}|\d{1,10})$/, expected: 'a four-character code' },
    'same as -tag:s',
    { alias: { of: 'tag', spec: 's' } },
  ),
  r('bsf', 'output', { kind: 'bsf' }, 'bitstream filters', { specifier: 'stream' }),
  r('absf', 'output', { kind: 'bsf' }, 'same as -bsf:a', { alias: { of: 'bsf', spec: 'a' } }),
  r('vbsf', 'output', { kind: 'bsf' }, 'same as -bsf:v', { alias: { of: 'bsf', spec: 'v' } }),
  r('force_key_frames', 'output', { kind: 'keyframes' }, 'force keyframes at times, or where an expression is true (expr:...)', {
    specifier: 'stream',
  }),
  r(
    'rc_override',
    'output',
    {
      kind: 'pattern',
      regex: /^-?\d{1,9},-?\d{1,9},-?\d{1,9}(?:\.\d{1,6})?(?:\/-?\d{1,9},-?\d{1,9},-?\d{1,9}(?:\.\d{1,6})?){0,999}$/,
      expected: 'start,end,q[/start,end,q...]',
    },
    'rate control override',
    { specifier: 'stream' },
  ),
  r(
    'intra_matrix',
    'output',
    { kind: 'pattern', regex: /^\d{1,3}(?:,\d{1,3}){63}$/, expected: '64 comma-separated numbers' },
    'intra quantisation matrix',
    { specifier: 'stream' },
  ),
  r(
    'inter_matrix',
    'output',
    { kind: 'pattern', regex: /^\d{1,3}(?:,\d{1,3}){63}$/, expected: '64 comma-separated numbers' },
    'inter quantisation matrix',
    { specifier: 'stream' },
  ),
  r(
    'chroma_intra_matrix',
    'output',
    { kind: 'pattern', regex: /^\d{1,3}(?:,\d{1,3}){63}$/, expected: '64 comma-separated numbers' },
    'chroma intra matrix',
    { specifier: 'stream' },
  ),
  r('bits_per_raw_sample', 'output', int(0, 64), 'bits per raw sample', { specifier: 'stream' }),
  r('copyinkf', 'output', NONE, 'when copying, keep the frames before the first keyframe', { bool: true, specifier: 'stream' }),
  r('copypriorss', 'output', int(-1, 1), 'when copying, keep frames before -ss', { specifier: 'stream' }),
  r('time_base', 'output', TOKEN, 'time base hint (1:24, 0.04166)', { specifier: 'stream' }),
  r('enc_time_base', 'output', TOKEN, 'encoder time base (0, -1 or a ratio)', { specifier: 'stream' }),
  r('bitexact', 'both', NONE, 'bit-exact mode (no encoder version strings)', { bool: true }),
  no(
    'pass',
    'output',
    int(1, 3),
    'two-pass encoding',
    'two-pass encoding runs ffmpeg twice and writes log files between the runs',
    'use -crf, or a bitrate with -maxrate and -bufsize',
    { specifier: 'stream' },
  ),
  no('passlogfile', 'output', TOKEN, 'two-pass log file', WRITES, 'use -crf, or a bitrate with -maxrate and -bufsize', {
    specifier: 'stream',
  }),
  no('pre', 'output', TOKEN, 'encoder preset file', PRESET_FILE, "use the encoder's own -preset", { specifier: 'stream' }),
  no('vpre', 'output', TOKEN, 'video preset file', PRESET_FILE, "use the encoder's own -preset"),
  no('apre', 'output', TOKEN, 'audio preset file', PRESET_FILE, "give the encoder's options directly (-b:a, -q:a, -profile:a)"),
  no('spre', 'output', TOKEN, 'subtitle preset file', PRESET_FILE, "give the encoder's options directly"),
  no('fpre', 'output', TOKEN, 'preset file', PRESET_FILE, "use the encoder's own -preset"),

  // Video.
  r('r', 'both', { kind: 'rate' }, 'frame rate: forced on an input, converted to on an output', { specifier: 'stream' }),
  r('fpsmax', 'output', { kind: 'rate' }, 'maximum frame rate', { specifier: 'stream' }),
  r('s', 'both', { kind: 'size' }, 'frame size (WxH or a name such as hd720)', { specifier: 'stream' }),
  r('aspect', 'output', { kind: 'aspect' }, 'display aspect ratio (16:9, 1.7778)', { specifier: 'stream' }),
  r('pix_fmt', 'both', { kind: 'pix_fmt' }, 'pixel format', { specifier: 'stream' }),
  r('top', 'both', int(-1, 1), 'field order (1 top first, 0 bottom first, -1 auto)', { specifier: 'stream' }),
  r('fps_mode', 'output', enumOf(...FPS_MODES), 'frame rate mode', { specifier: 'stream' }),
  r('vsync', 'global', enumOf(...FPS_MODES), 'frame rate mode (old name of -fps_mode)'),
  r('force_fps', 'output', NONE, 'keep the -r rate even if the encoder prefers another', { bool: true, specifier: 'stream' }),
  r(
    'timecode',
    'output',
    { kind: 'pattern', regex: /^\d{2}:\d{2}:\d{2}[:;.]\d{2}$/, expected: 'a timecode such as 01:00:00:00' },
    'initial timecode',
  ),
  r('filter', 'output', { kind: 'graph', graph: 'simple' }, 'filter graph for the selected streams', { specifier: 'stream' }),
  r('vf', 'output', { kind: 'graph', graph: 'simple' }, 'same as -filter:v', { alias: { of: 'filter', spec: 'v' } }),
  r('af', 'output', { kind: 'graph', graph: 'simple' }, 'same as -filter:a', { alias: { of: 'filter', spec: 'a' } }),
  r('filter_complex', 'global', { kind: 'graph', graph: 'complex' }, 'complex filter graph (also task.filter_complex)', {
    repeatable: true,
  }),
  r('lavfi', 'global', { kind: 'graph', graph: 'complex' }, 'same as -filter_complex', {
    alias: { of: 'filter_complex', spec: null },
    repeatable: true,
  }),
  no('filter_script', 'output', TOKEN, 'filter graph from a file', READS, 'put the graph in -vf/-af or task.filter_complex', {
    specifier: 'stream',
  }),
  no('filter_complex_script', 'global', TOKEN, 'complex filter graph from a file', READS, 'put the graph in task.filter_complex'),
  r('reinit_filter', 'input', int(-1, 1), 'rebuild the filter graph when the input changes', { specifier: 'stream' }),
  r('filter_threads', 'global', int(1, LIMITS.maxThreads), 'threads of simple filter graphs'),
  r('filter_complex_threads', 'global', int(1, LIMITS.maxThreads), 'threads of complex filter graphs'),
  r('autorotate', 'input', int(0, 1), "rotate by the input's display matrix (default on)", { bool: true, specifier: 'stream' }),
  r('autoscale', 'output', int(0, 1), "scale to the first frame's size when it changes (default on)", { bool: true, specifier: 'stream' }),
  r('auto_conversion_filters', 'global', NONE, 'insert format conversion filters automatically (default on)', { bool: true }),
  r('psnr', 'global', NONE, 'compute PSNR of encoded frames (logged)', { bool: true }),
  r('qphist', 'global', NONE, 'QP histogram (logged)', { bool: true }),
  no('vstats', 'global', NONE, 'video coding statistics', WRITES, VSTATS_INSTEAD),
  no('vstats_file', 'global', TOKEN, 'video coding statistics file', WRITES, VSTATS_INSTEAD),
  no('vstats_version', 'global', int(1, 2), 'video coding statistics format', 'it belongs to -vstats, which writes a file', VSTATS_INSTEAD),
  no('hwaccel', 'input', TOKEN, 'hardware decoding', HARDWARE, SOFTWARE, { specifier: 'stream' }),
  no('hwaccel_device', 'input', TOKEN, 'hardware decoding device', HARDWARE, SOFTWARE, { specifier: 'stream' }),
  no('hwaccel_output_format', 'input', TOKEN, 'hardware decoding format', HARDWARE, SOFTWARE, { specifier: 'stream' }),
  no('init_hw_device', 'global', TOKEN, 'hardware device', HARDWARE, SOFTWARE),
  no('filter_hw_device', 'global', TOKEN, 'hardware device for filters', HARDWARE, SOFTWARE),
  no('vaapi_device', 'global', TOKEN, 'VAAPI device', HARDWARE, SOFTWARE),
  no('qsv_device', 'global', TOKEN, 'QSV device', HARDWARE, SOFTWARE),

  // Audio.
  r('ar', 'both', int(1, LIMITS.maxSampleRate), 'sample rate', { specifier: 'stream' }),
  r('ac', 'both', int(1, LIMITS.maxChannels), 'channel count', { specifier: 'stream' }),
  r('sample_fmt', 'both', { kind: 'sample_fmt' }, 'sample format', { specifier: 'stream' }),
  r('channel_layout', 'both', { kind: 'ch_layout' }, 'channel layout', { specifier: 'stream', alias: { of: 'ch_layout', spec: null } }),
  r('ch_layout', 'both', { kind: 'ch_layout' }, 'channel layout', { specifier: 'stream' }),
  r('guess_layout_max', 'input', int(0, LIMITS.maxChannels), 'guess the layout of up to this many channels', { specifier: 'stream' }),
  r('vol', 'global', int(0, 65536), 'audio volume (256 = unchanged; old, prefer -af volume)'),
  no(
    'apad',
    'output',
    TOKEN,
    'pad audio',
    'it pads audio without end unless the output is bounded, and takes filter arguments outside a graph',
    'use -af apad=pad_dur=<seconds> (or apad with -shortest)',
    { specifier: 'stream' },
  ),

  // Subtitles.
  r('fix_sub_duration', 'input', NONE, 'fix subtitle durations', { bool: true, specifier: 'stream' }),
  r('canvas_size', 'input', { kind: 'size' }, 'canvas size of bitmap subtitles', { specifier: 'stream' }),

  // Muxing.
  r('muxdelay', 'output', num(0, 10), 'maximum demux-decode delay (seconds)'),
  r('muxpreload', 'output', num(0, 10), 'initial demux-decode delay (seconds)'),
  r('max_muxing_queue_size', 'output', int(1, 1_048_576), 'packets buffered while streams start', { specifier: 'stream' }),
  r('muxing_queue_data_threshold', 'output', int(1, 1_073_741_824), 'bytes buffered before the queue size applies', {
    specifier: 'stream',
  }),
  r('thread_queue_size', 'input', int(1, 65_536), 'packets queued from the demuxer'),
  r('find_stream_info', 'input', NONE, 'read ahead to fill in stream information (default on)', { bool: true }),
  no('sdp_file', 'output', TOKEN, 'SDP file', WRITES, 'RTP outputs are not offered; write a file output and download it'),

  // Global behaviour.
  r('copyts', 'global', NONE, 'keep the input timestamps', { bool: true }),
  r('start_at_zero', 'global', NONE, 'with -copyts, shift timestamps to start at zero', { bool: true }),
  r('copytb', 'global', int(-1, 1), 'time base of copied streams'),
  r('async', 'global', int(0, 1_000_000), 'audio sync method (old; prefer -af aresample=async=N)'),
  r('adrift_threshold', 'global', num(0, 1_000_000), 'audio drift threshold'),
  r('frame_drop_threshold', 'global', num(-1_000_000, 1_000_000), 'frame drop threshold'),
  r('dts_delta_threshold', 'global', num(0, 1_000_000), 'timestamp discontinuity threshold'),
  r('dts_error_threshold', 'global', num(0, 1_000_000_000), 'timestamp error threshold'),
  r('max_error_rate', 'global', num(0, 1), 'share of decoding errors above which the run fails'),
  r('xerror', 'global', NONE, 'stop at the first error', { bool: true }),
  r(
    'abort_on',
    'global',
    {
      kind: 'pattern',
      regex: /^[+-]?(?:empty_output|empty_output_stream)(?:[+-](?:empty_output|empty_output_stream))*$/,
      expected: 'empty_output or empty_output_stream',
    },
    'abort on these conditions',
  ),
  r('ignore_unknown', 'global', NONE, 'drop streams of unknown type', { bool: true }),
  r('copy_unknown', 'global', NONE, 'copy streams of unknown type', { bool: true }),
  r('recast_media', 'global', NONE, 'allow a decoder of another media type', { bool: true }),
  r('debug_ts', 'global', NONE, 'log timestamp details', { bool: true }),
  r('benchmark', 'global', NONE, 'log timings', { bool: true }),
  r('benchmark_all', 'global', NONE, 'log timings of every step', { bool: true }),
  r('timelimit', 'global', int(1, LIMITS.maxDurationSec), "CPU time limit in seconds (the service's own limit still applies)"),
  no('dump', 'global', NONE, 'log every packet', 'it writes every packet into the log', PACKETS_INSTEAD, { bool: true }),
  no('hex', 'global', NONE, 'log packet payloads', 'it writes every packet into the log', PACKETS_INSTEAD, { bool: true }),

  // Done by the service already: accepted, left out of the command.
  ignore('y', NONE, 'overwrite outputs', 'outputs are always written to a fresh directory', { bool: true }),
  ignore('n', NONE, 'never overwrite outputs', 'outputs are always written to a fresh directory', { bool: true }),
  ignore('hide_banner', NONE, 'no banner', LOGGING, { bool: true }),
  ignore('loglevel', TOKEN, 'log level', LOGGING),
  ignore('v', TOKEN, 'log level', LOGGING),
  ignore('stats', NONE, 'progress on the terminal', 'the service reports progress (GET /job)', { bool: true }),
  ignore('stats_period', TOKEN, 'progress period', 'the service reports progress (GET /job)'),
  ignore('stdin', NONE, 'read the terminal', 'ffmpeg never reads standard input here', { bool: true }),
  no(
    'progress',
    'global',
    TOKEN,
    'progress to a file or URL',
    'it writes to a file or URL; the service reports progress itself',
    'read the progress of an async job with GET /job/{jobId}',
  ),
  no(
    'report',
    'global',
    NONE,
    'write a log file',
    WRITES,
    "a failed job carries ffmpeg's error in its error text; for figures, use an analysis output (-f null, see docs/ffmpeg-policy.md)",
  ),
  no(
    'max_alloc',
    'global',
    TOKEN,
    'largest allocation',
    "memory limits are the service's",
    "leave it out: the sandbox bounds every run's memory",
  ),
  no(
    'cpuflags',
    'global',
    TOKEN,
    'CPU flags',
    "it changes how the machine's CPU is used",
    'leave it out; -threads (up to 16) sets how many threads a run uses',
  ),
  no(
    'cpucount',
    'global',
    TOKEN,
    'CPU count',
    "it changes how the machine's CPU is used",
    'leave it out; -threads (up to 16) sets how many threads a run uses',
  ),
  // Print-and-exit options (CMDUTILS_COMMON_OPTIONS).
  ...[
    'L',
    'h',
    '?',
    'help',
    '-help',
    'version',
    'buildconf',
    'formats',
    'muxers',
    'demuxers',
    'devices',
    'codecs',
    'decoders',
    'encoders',
    'bsfs',
    'protocols',
    'filters',
    'pix_fmts',
    'layouts',
    'sample_fmts',
    'dispositions',
    'colors',
    'sources',
    'sinks',
    'hwaccels',
  ].map((name) =>
    no(
      name,
      'global',
      NONE,
      'print information',
      HELP,
      "the build's filters, codecs and formats, and the verdict on each, are in docs/ffmpeg-policy.md and packages/media/policy/ffmpeg-policy.json",
    ),
  ),
];

const BY_NAME: ReadonlyMap<string, CliRule> = new Map(CLI_OPTIONS.map((o) => [o.name, o]));

/** The rule for an option name (no dash, no specifier); '-noNAME' of a bool option gives that option. */
export function cliRule(name: string): { rule: CliRule; negated: boolean } | undefined {
  const direct = BY_NAME.get(name);
  if (direct) return { rule: direct, negated: false };
  if (name.startsWith('no')) {
    const base = BY_NAME.get(name.slice(2));
    if (base?.bool) return { rule: base, negated: true };
  }
  return undefined;
}
