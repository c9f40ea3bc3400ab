// Hostile tasks: each must be refused with 400 by the plan (pure, so before any input is fetched
// or any ffmpeg process starts), with a message naming the refused token.
import { body, DIR, plan, refusal, single } from './policy-fixtures.js';

const TWO = [`${DIR}/in.mp4`, `${DIR}/logo.png`];
const many = (n: number, make: (i: number) => unknown) => Array.from({ length: n }, (_, i) => make(i));
const long = (n: number) => 'a'.repeat(n);

type Row = [title: string, task: unknown, names: string];

const fileReads: Row[] = [
  ['-i inside options', single(['-i', '/etc/passwd']), "Option '-i' is not allowed"],
  ['movie filter reading a file', single(['-vf', 'movie=/etc/passwd']), "Filter 'movie' is not allowed"],
  ['amovie in a complex graph', single(['-filter_complex', 'amovie=/etc/passwd[a]', '-map', '[a]']), "Filter 'amovie' is not allowed"],
  // Files a filter reads are side files: a task input, named by its file name; nothing else.
  [
    'subtitles with a path',
    single(['-vf', 'subtitles=/etc/passwd']),
    "Option 'filename' of filter 'subtitles' names '/etc/passwd', which is not an input of the task",
  ],
  [
    'ass with a file a task of URL inputs does not list',
    single(['-vf', 'ass=subs.ass'], 'out.mp4', ['https://media.example.com/a.mp4']),
    "names 'subs.ass', which is not an input of the task, and the task has no uploaded input whose directory could hold it",
  ],
  ['lut3d file up a directory', single(['-vf', 'lut3d=../x.cube']), "names '../x.cube', which is not an input of the task but a path"],
  [
    "subtitles in another account's directory",
    single(['-vf', 'subtitles=dir_other0123456789/x.srt']),
    "names 'dir_other0123456789/x.srt', which is not an input of the task but a path",
  ],
  ['a side file by a URL', single(['-vf', "lut3d='https\\://evil.example/x.cube'"]), 'which is not an input of the task but a URL'],
  [
    'drawtext textfile',
    single(['-vf', 'drawtext=textfile=/etc/passwd']),
    "Option 'textfile' of filter 'drawtext' names '/etc/passwd', which is not an input of the task",
  ],
  [
    'drawtext fontfile',
    single(['-vf', "drawtext=fontfile=/usr/share/fonts/x.ttf:text='hi'"]),
    "Option 'fontfile' of filter 'drawtext' names '/usr/share/fonts/x.ttf', which is not an input of the task",
  ],
  ['drawtext font naming a file', single(['-vf', "drawtext=font='Sans\\:file=/etc/passwd':text=x"]), 'must be a font family'],
  ['lut3d file', single(['-vf', 'lut3d=/etc/look.cube']), "names '/etc/look.cube', which is not an input of the task"],
  [
    'curves psfile',
    single(['-vf', 'curves=psfile=/etc/passwd']),
    "Option 'psfile' of filter 'curves' names '/etc/passwd', which is not an input of the task",
  ],
  [
    'a side file named by a path inside the directory',
    single(['-vf', 'subtitles=../dir_other/subs.srt'], 'out.mp4', [`${DIR}/in.mp4`, `${DIR}/subs.srt`]),
    'which is not an input of the task',
  ],
  ['curves plot writes a file', single(['-vf', 'curves=preset=vintage:plot=out.plt']), "Option 'plot' of filter 'curves' is not allowed"],
  [
    'paletteuse debug_kdtree writes a file',
    single(['-filter_complex', '[0:v]split[a][b];[a]palettegen[p];[b][p]paletteuse=debug_kdtree=kd.dot'], 'out.gif'),
    "Option 'debug_kdtree' of filter 'paletteuse' is not allowed",
  ],
  [
    'paletteuse debug_kdtree by position',
    single(['-filter_complex', '[0:v]split[a][b];[a]palettegen[p];[b][p]paletteuse=bayer:5:rectangle:0:128:0:kd.dot'], 'out.gif'),
    "Option 'debug_kdtree' of filter 'paletteuse' is not allowed",
  ],
  [
    '-attach of a path',
    single(['-attach', '/etc/passwd'], 'out.mkv'),
    "Option '-attach' names '/etc/passwd', which is not an input of the task",
  ],
  ['-dump_attachment:t', single(['-dump_attachment:t', 'font.ttf']), "Option '-dump_attachment:t' is not allowed"],
  ['-filter_script', single(['-filter_script:v', '/etc/passwd']), "Option '-filter_script:v' is not allowed"],
  ['-filter_complex_script', single(['-filter_complex_script', 'graph.txt']), "Option '-filter_complex_script' is not allowed"],
  ['-/filter (value from a file)', single(['-/filter:v', '/etc/passwd']), "Option '-/filter:v' in task.outputs[0].options is not allowed"],
  ['-/vf', single(['-/vf', 'graph.txt']), "'-/vf'"],
  ['-vstats_file', single(['-vstats_file', '/tmp/stats']), "Option '-vstats_file' is not allowed"],
  ['-vstats', single(['-vstats']), "Option '-vstats' is not allowed"],
  ['-passlogfile', single(['-passlogfile', '/tmp/log']), "Option '-passlogfile' is not allowed"],
  ['-pass', single(['-pass', '1']), "Option '-pass' is not allowed"],
  ['-progress to a URL', single(['-progress', 'http://evil.example/p']), "Option '-progress' is not allowed"],
  ['-report', single(['-report']), "Option '-report' is not allowed"],
  ['-sdp_file', single(['-sdp_file', '/tmp/x.sdp']), "Option '-sdp_file' is not allowed"],
  ['-fpre preset file', single(['-fpre', '/etc/passwd']), "Option '-fpre' is not allowed"],
  // Encoder parameter strings are allowed, but not their keys that name files.
  ['-x264-params with stats', single(['-c:v', 'libx264', '-x264-params', 'stats=/tmp/x.log:pass=1']), "the key 'stats' is not allowed"],
  ['-x265-params with a CSV log', single(['-c:v', 'libx265', '-x265-params', 'csv=/tmp/x.csv']), "the key 'csv' is not allowed"],
  ['-x264opts with stats', single(['-x264opts', 'stats=/tmp/x']), "the key 'stats' is not allowed"],
  // -stats is ffmpeg's own switch (ignored): the path after it is then a stray token.
  ['-stats and a path', single(['-c:v', 'libx264', '-stats', '/tmp/x']), "Unexpected '/tmp/x'"],
];

const protocolTricks: Row[] = [
  // -metadata text is not checked for paths (ffmpeg never opens it); filters in the same task still are.
  [
    'URL in a filter next to a URL in metadata',
    single(['-metadata', 'comment=see https://example.com', '-vf', "drawbox=color='https\\://example.com/x'"]),
    "Value 'https://example.com/x' of option 'color' of filter 'drawbox' must not name a file or URL (it looks like a URL)",
  ],
  [
    'URL as a metadata key',
    single(['-metadata', 'http://169.254.169.254/=x']),
    "Value 'http://169.254.169.254/=x' of '-metadata' must be key=value",
  ],
  [
    'a control character in metadata text',
    single(['-metadata', 'title=a\u0007b']),
    "Value of '-metadata' title contains a control character",
  ],
  ['subfile, in a filter argument', single(['-af', 'pan=subfile\\,\\,start\\,0\\,end\\,9\\,\\,']), "the protocol 'subfile,'"],
  [
    'tcp:// in a quoted filter value',
    single(['-vf', "drawbox=color='tcp\\://10.0.0.1\\:80'"]),
    "of option 'color' of filter 'drawbox' must not name a file or URL",
  ],
  ['pipe: in a token value', single(['-vf', "format=pix_fmts='pipe\\:1'"]), "the protocol 'pipe:'"],
  [
    '-protocol_whitelist on an input',
    body([{ file: 'out.mp4' }], [{ file_path: `${DIR}/in.mp4`, options: ['-protocol_whitelist', 'file,http,tcp'] }]),
    "Option '-protocol_whitelist' (AVFormatContext) is set by the service",
  ],
  [
    '-protocol_whitelist on an output does nothing',
    single(['-protocol_whitelist', 'file,http,tcp']),
    "Option '-protocol_whitelist' has no effect on output 'out.mp4'",
  ],
  ['-headers on an HLS output', single(['-headers', 'X-Forwarded-For: 127.0.0.1'], 'out.m3u8'), "Option '-headers' (hls) is not allowed"],
  ['-method on a DASH output', single(['-method', 'PUT'], 'out.mpd'), "Option '-method' (dash) is not allowed"],
  [
    '-enable_drefs on a mov input',
    body([{ file: 'out.mp4' }], [{ file_path: `${DIR}/in.mov`, options: ['-f', 'mov', '-enable_drefs', '1'] }]),
    "Option '-enable_drefs' (mov) is set by the service",
  ],
  ['input -f hls', body([{ file: 'out.mp4' }], [{ file_path: `${DIR}/in.mp4`, options: ['-f', 'hls'] }]), "Demuxer 'hls' is not allowed"],
  [
    'input -f lavfi on an uploaded file',
    body([{ file: 'out.mp4' }], [{ file_path: `${DIR}/in.mp4`, options: ['-f', 'lavfi'] }]),
    'task.inputs[0] has -f lavfi, which makes its file_path a filter graph such as color=black:s=1280x720:d=5, but',
  ],
  [
    'input -f image2 on a single file',
    body([{ file: 'out.mp4' }], [{ file_path: `${DIR}/in.png`, options: ['-f', 'image2'] }]),
    '-f image2 is for image sequences',
  ],
  [
    'input -f concat on a URL',
    body([{ file: 'out.mp4' }], [{ file_path: 'https://media.example.com/list.txt', options: ['-f', 'concat'] }]),
    'must be an uploaded file',
  ],
  [
    'a sequence with a glob',
    body([{ file: 'out.mp4' }], [{ file_path: `${DIR}/img_%03d.png`, options: ['-pattern_type', 'glob'] }]),
    'set by the service for image sequences',
  ],
  [
    'HLS segments written elsewhere',
    single(['-hls_segment_filename', '/tmp/seg%d.ts'], 'p.m3u8'),
    "Option '-hls_segment_filename' (hls) is set by the service",
  ],
  ['HLS key info file', single(['-hls_key_info_file', 'keys.txt'], 'p.m3u8'), "Option '-hls_key_info_file' (hls) is not allowed"],
  [
    'DASH segments written elsewhere',
    single(['-init_seg_name', '../init.m4s'], 'm.mpd'),
    "Option '-init_seg_name' (dash) is set by the service",
  ],
  ['http:// input', single([], 'out.mp4', ['http://media.example.com/a.mp4']), 'must be a public HTTPS URL'],
  ['file:// input', single([], 'out.mp4', ['file:///etc/passwd']), 'must be a public HTTPS URL'],
  ['concat: input', single([], 'out.mp4', ['concat:/etc/passwd|/etc/hosts']), 'must be a public HTTPS URL'],
  ['absolute path input', single([], 'out.mp4', ['/etc/passwd']), 'Invalid file_path format. Expected <dir_id>/<file_name>'],
  ['path traversal input', single([], 'out.mp4', [`${DIR}/../../etc/passwd`]), 'Invalid file_path format. Expected <dir_id>/<file_name>'],
  ['URL with credentials', single([], 'out.mp4', ['https://user:pw@media.example.com/a.mp4']), 'must not contain a user name or password'],
];

const pathOptions: Row[] = [
  [
    'path in scale flags',
    single(['-vf', 'scale=320:240:flags=/etc/passwd']),
    "Value '/etc/passwd' of option 'flags' of filter 'scale' must not name a file or URL",
  ],
  [
    'relative path in a filter value',
    single(['-vf', 'drawbox=color=../../secret']),
    "of option 'color' of filter 'drawbox' must not name a file or URL",
  ],
  [
    '/key= reads a file in ffmpeg 7',
    single(['-vf', 'drawbox=/color=/etc/passwd']),
    "Filter 'drawbox' has no option '/color': '/' would load the value from a file",
  ],
  [
    'bare path token',
    single(['-c', 'copy', '/etc/passwd']),
    "Unexpected '/etc/passwd' in task.outputs[0].options where an option was expected",
  ],
  ['bare URL token', single(['https://evil.example/x.mp4']), "Unexpected 'https://evil.example/x.mp4'"],
  ['bare second output', single(['-c', 'copy', 'second.mp4']), "Unexpected 'second.mp4'"],
  ['stdout as output', single(['-f', 'mp4', '-']), "Unexpected '-'"],
  ['path as -map value', single(['-map', '/etc/passwd']), "Value '/etc/passwd' of '-map'"],
  ['-map of a missing input', single(['-map', '3:v']), 'refers to input 3'],
  ['graph label of a missing input', single(['-filter_complex', '[5:v]scale=320:-2[v]', '-map', '[v]']), 'Input label [5:v]'],
];

const dangerousFilters: Row[] = [
  ['ladspa', single(['-af', 'ladspa=file=/tmp/evil.so:plugin=x']), "Filter 'ladspa' is not allowed"],
  ['lv2', single(['-af', 'lv2=plugin=urn:x']), "Filter 'lv2' is not allowed"],
  ['frei0r', single(['-vf', 'frei0r=/tmp/evil.so']), "Filter 'frei0r' is not allowed"],
  ['sendcmd', single(['-vf', 'sendcmd=f=/etc/passwd,scale=320:-2']), "Filter 'sendcmd' is not allowed"],
  ['zmq', single(['-vf', 'zmq=bind_address=tcp\\://0.0.0.0\\:5555']), "Filter 'zmq' is not allowed"],
  ['azmq', single(['-af', 'azmq']), "Filter 'azmq' is not allowed"],
  ['dnn_processing', single(['-vf', 'dnn_processing=dnn_backend=native:model=/tmp/m.model']), "Filter 'dnn_processing' is not allowed"],
  // A filter is refused for the option that writes or reads, not as a whole.
  [
    'psnr stats_file',
    single(['-filter_complex', '[0:v][1:v]psnr=stats_file=/tmp/psnr.log'], 'out.mp4', TWO),
    "Option 'stats_file' of filter 'psnr' is not allowed",
  ],
  [
    'ssim stats_file',
    single(['-filter_complex', '[0:v][1:v]ssim=stats_file=-'], 'out.mp4', TWO),
    "Option 'stats_file' of filter 'ssim' is not allowed",
  ],
  ['vidstabdetect', single(['-vf', 'vidstabdetect=result=/tmp/t.trf']), "Filter 'vidstabdetect' is not allowed"],
  ['signature', single(['-vf', 'signature=filename=/tmp/sig']), "Option 'filename' of filter 'signature' is not allowed"],
  ['metadata print to file', single(['-vf', 'metadata=mode=print:file=/tmp/m.txt']), "Option 'file' of filter 'metadata' is not allowed"],
  // Runs without end are refused unless the output is bounded.
  ['loop forever', single(['-vf', 'loop=loop=-1:size=1']), "Output 'out.mp4' would never end: filter 'loop' loops without end (loop=-1)"],
  [
    '-stream_loop -1 on an input, unbounded',
    body([{ file: 'out.mp4' }], [{ file_path: `${DIR}/in.mp4`, options: ['-stream_loop', '-1'] }]),
    'input 0 plays without end (-stream_loop -1)',
  ],
  ['-stream_loop as an output option', single(['-stream_loop', '-1']), "Option '-stream_loop' is an input option"],
  [
    'a generator without a duration',
    single(['-filter_complex', 'testsrc=s=320x240[v]', '-map', '[v]']),
    "filter 'testsrc' has no duration (d=)",
  ],
  [
    'an endless source through a graph',
    body([{ file: 'out.mp4', maps: ['[v]'] }], [`${DIR}/in.mp4`], { filter_complex: 'color=s=64x64[bg];[bg][0:v]overlay[v]' }),
    "filter 'color' has no duration",
  ],
  [
    'expression that never ends',
    single(['-vf', "select='while(1\\,1)'"]),
    "Value 'while(1,1)' of option 'expr' of filter 'select' uses while()",
  ],
  // eval.c skips from a function's name to the next '(': these are all while(1,1).
  ['while with a sign before its (', single(['-vf', "select='while+(1\\,1)'"]), "of option 'expr' of filter 'select' uses while()"],
  ['while with a word before its (', single(['-vf', "select='while x(1\\,1)'"]), "of option 'expr' of filter 'select' uses while()"],
  ['while in enable=', single(['-vf', "hflip=enable='while-(1\\,1)'"]), "of option 'enable' of filter 'hflip' uses while()"],
  [
    'nested root()',
    single(['-vf', "select='root(root(root(t\\,1)\\,1)\\,1)'"]),
    "of option 'expr' of filter 'select' uses root(), which can run without end",
  ],
  ['taylor()', single(['-vf', "geq=lum='taylor(1\\,1)'"]), "of option 'lum' of filter 'geq' uses taylor()"],
  [
    'keyframe expression with root()',
    single(['-force_key_frames', 'expr:root(root(t,1),1)']),
    "Value 'expr:root(root(t,1),1)' of '-force_key_frames' uses root()",
  ],
  [
    'keyframe expression that never ends',
    single(['-force_key_frames', 'expr:while(1,1)']),
    "Value 'expr:while(1,1)' of '-force_key_frames' uses while()",
  ],
  ['an option value that is an endless expression', single(['-af', "volume=volume='while(1\\,1)'"]), 'uses while()'],
];

const aliasTricks: Row[] = [
  ['-lavfi alias', single(['-lavfi', 'movie=/etc/passwd[v]', '-map', '[v]']), "Filter 'movie' is not allowed"],
  ['-filter:v:0', single(['-filter:v:0', 'movie=/etc/passwd']), "Filter 'movie' is not allowed"],
  ['quoted filter name', single(['-vf', "'movie'=/etc/passwd"]), "Filter 'movie' is not allowed"],
  ['escaped filter name', single(['-vf', 'mov\\ie=/etc/passwd']), "Filter 'movie' is not allowed"],
  ['second filter of a chain', single(['-vf', 'scale=320:-2,movie=x']), "Filter 'movie' is not allowed"],
  ['labelled movie with an id', single(['-vf', '[in]movie@x=/etc/passwd[out]']), "Filter 'movie' is not allowed"],
  ['movie@label', single(['-vf', 'movie@label']), "Filter 'movie' is not allowed"],
  ['escaped @ in the name', single(['-vf', 'movie\\@x=/etc/passwd']), "Filter 'movie' is not allowed"],
  ['upper-case MOVIE', single(['-vf', 'MOVIE=/etc/passwd']), "Filter 'MOVIE' is not a filter of this FFmpeg build"],
  ['-vf given twice', single(['-vf', 'scale=320:-2', '-vf', 'hflip']), "Option '-vf' is given more than once"],
  ['-vf and -filter:v together', single(['-vf', 'scale=320:-2', '-filter:v', 'hflip']), "Option '-filter:v' is given more than once"],
  ['-af with a ; chain', single(['-af', 'volume=2;amovie=/etc/passwd']), "Filter 'amovie' is not allowed"],
  ['video filter in -af', single(['-af', 'scale=320:-2']), "Filter 'scale' is a video filter and cannot be used in '-af'"],
  ['alias with a specifier', single(['-vcodec:0', 'libx264']), "Option '-vcodec' takes no specifier"],
  ['upper-case option', single(['-VF', 'scale=320:-2']), "Option '-VF' in task.outputs[0].options is not an ffmpeg option"],
  ['double dash', single(['--vf', 'scale=320:-2']), "Option '--vf' in task.outputs[0].options is not an ffmpeg option"],
  ['protocol hidden by quoting', single(['-vf', "drawbox=color=fi'le\\:x'"]), "the protocol 'file:'"],
  ['hardware encoder', single(['-c:v', 'h264_vaapi']), "Encoder 'h264_vaapi' is not allowed: it needs a hardware device"],
  ['hardware filter', single(['-vf', 'scale_vaapi=w=320:h=240']), "Filter 'scale_vaapi' is not allowed: it needs a hardware device"],
  [
    'text-art decoder',
    body([{ file: 'out.mp4' }], [{ file_path: `${DIR}/in.txt`, options: ['-c:v', 'ansi'] }]),
    "Decoder 'ansi' is not allowed",
  ],
  [
    'sendcmd changing a filter at run time',
    single(['-vf', "sendcmd=c='0 drawtext reinit fontfile=/etc/passwd',drawtext=text=x"]),
    "Filter 'sendcmd' is not allowed",
  ],
  ['control character in a graph value', single(['-vf', 'drawbox=color=red\u0000']), 'control character'],
];

const oversize: Row[] = [
  ['scale=100000:100000', single(['-vf', 'scale=100000:100000']), "Value '100000' of option 'w' of filter 'scale' exceeds 8192 pixels"],
  ['scale=1e5', single(['-vf', 'scale=1e5:-2']), "of option 'w' of filter 'scale'"],
  ['scale by expression', single(['-vf', 'scale=iw*100:ih*100']), "Value 'iw*100' of option 'w' of filter 'scale' can exceed 16384"],
  ['scale to a huge named size', single(['-vf', 'scale=100000x100000']), 'is read as a frame size when no height is given'],
  ['pad huge', single(['-vf', 'pad=w=20000:h=20000']), "of option 'w' of filter 'pad'"],
  ['rotate with a huge canvas', single(['-vf', 'rotate=a=1:ow=65536']), "of option 'ow' of filter 'rotate'"],
  ['a source of a huge size', single(['-filter_complex', 'color=s=65536x65536:d=1[v]', '-map', '[v]']), 'must be at most 8192x8192'],
  ['-s 65536x65536', single(['-s', '65536x65536']), "Value '65536x65536' of '-s' must be at most 8192x8192"],
  ['-r 100000', single(['-r', '100000']), "Value '100000' of '-r'"],
  ['fps=100000', single(['-vf', 'fps=100000']), "of option 'fps' of filter 'fps' must be at most 240"],
  ['-threads 10000', single(['-threads', '10000']), "Value '10000' of option '-threads' (AVCodecContext) must be at most 16"],
  ['-frames 1e12', single(['-frames', '1e12']), "Value '1e12' of '-frames'"],
  ['-t over 24 hours', single(['-t', '100000']), "Value '100000' of '-t'"],
  ['split into 1000 pads', single(['-vf', 'split=1000[a]']), "of option 'outputs' of filter 'split' must be at most 32"],
  ['option over 8192 characters', single(['-metadata', `title=${long(9000)}`]), 'task.outputs[0].options[1] is 9006 characters long'],
  [
    'filter graph over 32768 characters',
    single(['-vf', `scale=320:-2${',null'.repeat(8200)}`]),
    'The filter graph in task.outputs[0].options[1] is 41012 characters long; at most 32768',
  ],
  ['too many filters', single(['-vf', `scale=320:-2${',null'.repeat(300)}`]), "Filter graph of '-vf' has 301 filters"],
  ['401 options', single(many(401, () => '-an') as string[]), 'task.outputs[0].options has 401 entries'],
  [
    '51 outputs',
    body(many(51, (i) => ({ file: `o${i}.mp4`, options: [] })) as { file: string; options: string[] }[]),
    'task.outputs must be an array of 1 to 50 outputs (got 51)',
  ],
  ['101 inputs', single([], 'out.mp4', many(101, (i) => `${DIR}/i${i}.mp4`) as string[]), 'task.inputs has 101 items'],
  [
    'numbered pattern over 1000 frames',
    single(['-frames:v', '5000'], 'thumb_%03d.png'),
    'The task can write up to 5000 files; at most 1000 are allowed',
  ],
  // ffmpeg applies the last -frames matching the stream: this one wrote 3,165 files before the watch stopped it.
  [
    'numbered pattern with a later, larger -frames:v:0',
    single(['-frames:v', '5', '-frames:v:0', '100000'], 'fr%d.png'),
    'The task can write up to 100000 files',
  ],
  [
    'numbered pattern with a later, larger -frames:0',
    single(['-frames:v', '5', '-frames:0', '5000'], 'fr%d.png'),
    'The task can write up to 5000 files',
  ],
  [
    'numbered pattern with -vframes and a larger -frames',
    single(['-vframes', '10', '-frames', '2000'], 'fr%d.png'),
    'The task can write up to 2000 files',
  ],
  // The image muxer writes a file per packet of each stream; -frames bounds one stream.
  [
    'numbered pattern with two -map',
    single(['-map', '0:v', '-map', '0:v', '-frames:v', '3'], 'fr%d.png'),
    "Output 'fr%d.png' is a numbered pattern and writes one stream: give at most one -map",
  ],
  [
    'numbered pattern mapping every stream',
    single(['-map', '0', '-frames:v', '3'], 'fr%d.png'),
    'writes one stream: give at most one -map',
  ],
  [
    'numbered pattern with video and audio',
    single(['-map', '0:v:0', '-map', '0:a', '-c:a', 'pcm_s16le', '-frames:v', '3'], 'fr%d.png'),
    'writes one stream',
  ],
  [
    'numbered pattern taking two graph outputs',
    single(['-filter_complex', '[0:v]split[a][b]', '-map', '[a]', '-map', '[b]', '-frames:v', '3'], 'fr%d.png'),
    'writes one stream',
  ],
  [
    'numbered pattern first, with a complex graph',
    single(['-filter_complex', '[0:v]split', '-frames:v', '3'], 'fr%d.png'),
    "Output 'fr%d.png' is a numbered pattern and cannot be the first output of a task with a filter_complex graph",
  ],
  [
    'more than 1000 files in all',
    body(many(3, (i) => ({ file: `t${i}_%d.jpg`, options: ['-frames:v', '400'] })) as { file: string; options: string[] }[]),
    'The task can write up to 1200 files',
  ],
  ['other % sequences in a name', single([], 'out_%s.png'), "task.outputs[0].file 'out_%s.png' has an unsupported % sequence"],
];

const muxers: Row[] = [
  ['-f tee', single(['-f', 'tee', '-map', '0']), "Muxer 'tee' is not allowed: it writes files outside the task outputs"],
  [
    '-f segment without a numbered name',
    single(['-f', 'segment']),
    "Output 'out.mp4' uses -f segment, which writes one file per part: name it with a number pattern such as 'out_%03d.mp4'",
  ],
  // The streaming variant stays refused, by either name of its catalogue key 'stream_segment,ssegment'.
  [
    '-f ssegment',
    single(['-f', 'ssegment'], 'p_%03d.ts'),
    "Muxer 'ssegment' is not allowed: it writes files outside the task outputs; instead, use -f segment",
  ],
  [
    '-f stream_segment',
    single(['-f', 'stream_segment'], 'p_%03d.ts'),
    "Muxer 'stream_segment' is not allowed: it writes files outside the task outputs; instead, use -f segment",
  ],
  ['-f rtp', single(['-f', 'rtp']), "Muxer 'rtp' is not allowed: it opens network connections"],
  ['HLS named other than .m3u8', single(['-f', 'hls'], 'out.mp4'), 'its name must end with .m3u8'],
  ['a numbered name for a video muxer', single(['-frames:v', '3'], 'clip_%d.mp4'), 'those are for image files'],
  ['encoder not on the list', single(['-c:v', 'h264_vaapi']), "Encoder 'h264_vaapi' is not allowed"],
];

const groups: Array<[string, Row[]]> = [
  ['file reads', fileReads],
  ['protocol tricks', protocolTricks],
  ['path and URL options', pathOptions],
  ['dangerous filters', dangerousFilters],
  ['alias and quoting tricks', aliasTricks],
  ['oversize values', oversize],
  ['muxers', muxers],
];

const all = groups.flatMap(([, rows]) => rows);

test(`the table has at least 40 hostile tasks (${all.length})`, () => {
  expect(all.length).toBeGreaterThanOrEqual(40);
});

describe.each(groups)('%s', (_group, rows) => {
  test.each(rows)('%s is refused with 400', (_title, task, names) => {
    const err = refusal(() => plan(task));
    expect(err.status).toBe(400);
    expect(err.kind).toBe('bad_request');
    expect(err.message).toContain(names);
  });
});
