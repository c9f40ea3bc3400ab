// Hostile tasks: each must be refused with 400 by validateTask (pure, so before any input is
// fetched or any ffmpeg process starts), with a message naming the refused token.
import { validateTask } from '../src/policy/index.js';
import { body, DIR, refusal, single } from './policy-fixtures.js';

const TWO = [`${DIR}/in.mp4`, `${DIR}/logo.png`];
const many = (n: number, make: (i: number) => unknown) => Array.from({ length: n }, (_, i) => make(i));
const long = (n: number) => 'a'.repeat(n);

type Row = [title: string, task: unknown, names: string];

const fileReads: Row[] = [
  ['-i inside options', single(['-i', '/etc/passwd']), "Option '-i' is not allowed"],
  ['movie filter reading a file', single(['-vf', 'movie=/etc/passwd']), "Filter 'movie' is not allowed"],
  ['amovie in a complex graph', single(['-filter_complex', 'amovie=/etc/passwd[a]', '-map', '[a]']), "Filter 'amovie' is not allowed"],
  ['subtitles with a file', single(['-vf', 'subtitles=/etc/passwd']), "Filter 'subtitles' is not allowed"],
  ['ass with a file', single(['-vf', 'ass=subs.ass']), "Filter 'ass' is not allowed"],
  ['drawtext textfile', single(['-vf', 'drawtext=textfile=/etc/passwd']), "Filter 'drawtext' is not allowed"],
  ['drawtext fontfile', single(['-vf', "drawtext=fontfile=/usr/share/fonts/x.ttf:text='hi'"]), "Filter 'drawtext' is not allowed"],
  ['lut3d file', single(['-vf', 'lut3d=/etc/look.cube']), "Filter 'lut3d' is not allowed"],
  ['lut1d file', single(['-vf', 'lut1d=file=/etc/look.cube']), "Filter 'lut1d' is not allowed"],
  ['haldclut', single(['-filter_complex', '[0:v][1:v]haldclut'], 'out.mp4', TWO), "Filter 'haldclut' is not allowed"],
  ['curves psfile', single(['-vf', 'curves=psfile=/etc/passwd']), "option 'psfile' is not allowed"],
  ['curves plot writes a file', single(['-vf', 'curves=preset=vintage:plot=out.plt']), "option 'plot' is not allowed"],
  ['paletteuse debug_kdtree writes a file', single(['-filter_complex', '[0:v]split[a][b];[a]palettegen[p];[b][p]paletteuse=debug_kdtree=kd.dot'], 'out.gif'), "option 'debug_kdtree' is not allowed"],
  ['paletteuse debug_kdtree by position', single(['-filter_complex', '[0:v]split[a][b];[a]palettegen[p];[b][p]paletteuse=bayer:5:rectangle:0:128:0:kd.dot'], 'out.gif'), "Filter 'paletteuse' takes at most 3 values"],
  ['-attach', single(['-attach', '/etc/passwd'], 'out.mkv'), "Option '-attach' is not allowed"],
  ['-dump_attachment:t', single(['-dump_attachment:t', 'font.ttf']), "Option '-dump_attachment' is not allowed"],
  ['-filter_script', single(['-filter_script:v', '/etc/passwd']), "Option '-filter_script' is not allowed"],
  ['-filter_complex_script', single(['-filter_complex_script', 'graph.txt']), "Option '-filter_complex_script' is not allowed"],
  ['-/filter (value from a file)', single(['-/filter:v', '/etc/passwd']), "Option '-/filter:v' is not allowed"],
  ['-/vf', single(['-/vf', 'graph.txt']), "'-/vf'"],
  ['-vstats_file', single(['-vstats_file', '/tmp/stats']), "Option '-vstats_file' is not allowed"],
  ['-vstats', single(['-vstats']), "Option '-vstats' is not allowed"],
  ['-passlogfile', single(['-passlogfile', '/tmp/log']), "Option '-passlogfile' is not allowed"],
  ['-pass', single(['-pass', '1']), "Option '-pass' is not allowed"],
  ['-progress to a URL', single(['-progress', 'http://evil.example/p']), "Option '-progress' is not allowed"],
  ['-report', single(['-report']), "Option '-report' is not allowed"],
  ['-sdp_file', single(['-sdp_file', '/tmp/x.sdp']), "Option '-sdp_file' is not allowed"],
  ['-fpre preset file', single(['-fpre', '/etc/passwd']), "Option '-fpre' is not allowed"],
  ['-x264-params with stats', single(['-c:v', 'libx264', '-x264-params', 'stats=/tmp/x.log:pass=1']), "Option '-x264-params' is not allowed"],
  ['-x265-params', single(['-c:v', 'libx265', '-x265-params', 'csv=/tmp/x.csv']), "Option '-x265-params' is not allowed"],
  ['-x264opts', single(['-x264opts', 'stats=/tmp/x']), "Option '-x264opts' is not allowed"],
  ['-stats (libx264 stats file name)', single(['-c:v', 'libx264', '-stats', '/tmp/x']), "Option '-stats' is not allowed"],
];

const protocolTricks: Row[] = [
  // -metadata text is not checked for paths (ffmpeg never opens it); filters in the same task still are.
  ['URL in a filter next to a URL in metadata', single(['-metadata', 'comment=see https://example.com', '-vf', "hue='h=https\\://example.com/x'"]), "filter 'hue' option 'h' must not name a file or URL: 'https://example.com/x' looks like a URL"],
  ['URL as a metadata key', single(['-metadata', 'http://169.254.169.254/=x']), "Value 'http://169.254.169.254/=x' of '-metadata' must be key=value"],
  ['newline in metadata text', single(['-metadata', 'title=a\nb']), "Value of '-metadata' contains a control character"],
  ['subfile, in a filter argument', single(['-af', 'pan=subfile\\,\\,start\\,0\\,end\\,9\\,\\,']), "the protocol 'subfile,'"],
  ['tcp:// in a quoted filter value', single(['-vf', "hue='h=tcp\\://10.0.0.1\\:80'"]), "filter 'hue' option 'h' must not name a file or URL"],
  ['pipe: in a filter value', single(['-vf', "select='pipe\\:1'"]), "the protocol 'pipe:'"],
  ['-protocol_whitelist', single(['-protocol_whitelist', 'file,http,tcp']), "Option '-protocol_whitelist' is not allowed"],
  ['-headers', single(['-headers', 'X-Forwarded-For: 127.0.0.1']), "Option '-headers' is not allowed"],
  ['-method', single(['-method', 'PUT']), "Option '-method' is not allowed"],
  ['-safe 0', single(['-safe', '0']), "Option '-safe' is not allowed"],
  ['http:// input', single([], 'out.mp4', ['http://media.example.com/a.mp4']), 'must be a public HTTPS URL'],
  ['file:// input', single([], 'out.mp4', ['file:///etc/passwd']), 'must be a public HTTPS URL'],
  ['concat: input', single([], 'out.mp4', ['concat:/etc/passwd|/etc/hosts']), 'must be a public HTTPS URL'],
  ['absolute path input', single([], 'out.mp4', ['/etc/passwd']), 'Invalid file_path format. Expected <dir_id>/<file_name>'],
  ['path traversal input', single([], 'out.mp4', [`${DIR}/../../etc/passwd`]), 'Invalid file_path format. Expected <dir_id>/<file_name>'],
  ['URL with credentials', single([], 'out.mp4', ['https://user:pw@media.example.com/a.mp4']), 'must not contain a user name or password'],
];

const pathOptions: Row[] = [
  ['path in scale flags', single(['-vf', 'scale=320:240:flags=/etc/passwd']), "filter 'scale' option 'flags' must not name a file or URL"],
  ['relative path in a filter value', single(['-vf', 'drawbox=color=../../secret']), "filter 'drawbox' option 'color' must not name a file or URL"],
  ['/key= reads a file in ffmpeg 7', single(['-vf', 'drawbox=/color=/etc/passwd']), "option '/color' is not allowed: '/' would load the value from a file"],
  ['bare path token', single(['-c', 'copy', '/etc/passwd']), "Unexpected '/etc/passwd' where an option was expected"],
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
  ['psnr stats_file', single(['-filter_complex', '[0:v][1:v]psnr=stats_file=/tmp/psnr.log'], 'out.mp4', TWO), "Filter 'psnr' is not allowed"],
  ['ssim stats_file', single(['-filter_complex', '[0:v][1:v]ssim=stats_file=-'], 'out.mp4', TWO), "Filter 'ssim' is not allowed"],
  ['vidstabdetect', single(['-vf', 'vidstabdetect=result=/tmp/t.trf']), "Filter 'vidstabdetect' is not allowed"],
  ['signature', single(['-vf', 'signature=filename=/tmp/sig']), "Filter 'signature' is not allowed"],
  ['metadata print to file', single(['-vf', 'metadata=mode=print:file=/tmp/m.txt']), "Filter 'metadata' is not allowed"],
  ['loop forever', single(['-vf', 'loop=loop=-1:size=1']), "Filter 'loop' is not allowed"],
  ['-stream_loop -1', single(['-stream_loop', '-1']), "Option '-stream_loop' is not allowed"],
  ['expression that never ends', single(['-vf', "select='while(1\\,1)'"]), "filter 'select' option 'expr' uses while()"],
  // eval.c skips from a function's name to the next '(': these are all while(1,1).
  ['while with a sign before its (', single(['-vf', "select='while+(1\\,1)'"]), "filter 'select' option 'expr' uses while()"],
  ['while with a word before its (', single(['-vf', "select='while x(1\\,1)'"]), "filter 'select' option 'expr' uses while()"],
  ['while in enable=', single(['-vf', "hflip=enable='while-(1\\,1)'"]), "filter 'hflip' option 'enable' uses while()"],
  ['nested root()', single(['-vf', "select='root(root(root(t\\,1)\\,1)\\,1)'"]), "filter 'select' option 'expr' uses root(), which can run without end"],
  ['taylor()', single(['-vf', "geq=lum='taylor(1\\,1)'"]), "filter 'geq' option 'lum' uses taylor()"],
  ['keyframe expression with root()', single(['-force_key_frames', 'expr:root(root(t,1),1)']), "Value 'expr:root(root(t,1),1)' of '-force_key_frames'"],
  ['pad to an unbounded aspect', single(['-vf', 'pad=w=iw:h=ih:aspect=1/2000']), "Filter 'pad' option 'aspect' is not allowed"],
  ['keyframe expression that never ends', single(['-force_key_frames', 'expr:while(1,1)']), "Value 'expr:while(1,1)' of '-force_key_frames'"],
  ['source filter inventing input', single(['-filter_complex', 'testsrc=s=8192x8192[v]', '-map', '[v]']), "Filter 'testsrc' is not allowed"],
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
  ['upper-case MOVIE', single(['-vf', 'MOVIE=/etc/passwd']), "Filter 'MOVIE' is not allowed"],
  ['-vf given twice', single(['-vf', 'scale=320:-2', '-vf', 'hflip']), "Option '-vf' is given more than once"],
  ['-vf and -filter:v together', single(['-vf', 'scale=320:-2', '-filter:v', 'hflip']), "Option '-filter:v' is given more than once"],
  ['-af with a ; chain', single(['-af', 'volume=2;amovie=/etc/passwd']), "Filter 'amovie' is not allowed"],
  ['video filter in -af', single(['-af', 'scale=320:-2']), "Filter 'scale' is a video filter and cannot be used in '-af'"],
  ['alias with a specifier', single(['-vcodec:0', 'libx264']), "Option '-vcodec' takes no specifier"],
  ['-y', single(['-y']), "Option '-y' is not allowed"],
  ['upper-case option', single(['-VF', 'scale=320:-2']), "Option '-VF' is not allowed"],
  ['double dash', single(['--vf', 'scale=320:-2']), "Option '--vf' is not allowed"],
  ['protocol hidden by quoting', single(['-vf', "drawbox=color=fi'le\\:x'"]), "the protocol 'file:'"],
  ['control character in a graph value', single(['-vf', 'drawbox=color=red\u0000']), 'control character'],
];

const oversize: Row[] = [
  ['scale=100000:100000', single(['-vf', 'scale=100000:100000']), "Value '100000' of filter 'scale' option 'w' exceeds 8192 pixels"],
  ['scale=1e5', single(['-vf', 'scale=1e5:-2']), "filter 'scale' option 'w'"],
  ['scale by expression', single(['-vf', 'scale=iw*100:ih*100']), "Value 'iw*100' of filter 'scale' option 'w' can exceed 16384"],
  ['pad huge', single(['-vf', 'pad=w=20000:h=20000']), "filter 'pad' option 'w'"],
  ['rotate with a huge canvas', single(['-vf', 'rotate=a=1:ow=65536']), "filter 'rotate' option 'ow'"],
  ['-s 65536x65536', single(['-s', '65536x65536']), "Value '65536x65536' of '-s' must be at most 8192x8192"],
  ['-r 100000', single(['-r', '100000']), "Value '100000' of '-r'"],
  ['fps=100000', single(['-vf', 'fps=100000']), "filter 'fps' option 'fps'"],
  ['-threads 10000', single(['-threads', '10000']), "Value '10000' of '-threads' must be an integer from 1 to 16"],
  ['-frames 1e12', single(['-frames', '1e12']), "Value '1e12' of '-frames'"],
  ['-t over 24 hours', single(['-t', '100000']), "Value '100000' of '-t'"],
  ['split into 1000 pads', single(['-vf', 'split=1000[a]']), "filter 'split' option 'outputs'"],
  ['tile 100x100', single(['-vf', 'tile=100x100', '-frames:v', '1'], 'sheet.png'), "filter 'tile' option 'layout'"],
  ['thumbnail batch of 100000 frames', single(['-vf', 'thumbnail=100000']), "filter 'thumbnail' option 'n'"],
  ['option over 8192 characters', single(['-metadata', `title=${long(9000)}`]), 'task.outputs[0].options[1] is 9006 characters long'],
  ['filter graph over 32768 characters', single(['-vf', `scale=320:-2${',null'.repeat(8200)}`]), 'The filter graph in task.outputs[0].options[1] is 41012 characters long; at most 32768'],
  ['too many filters', single(['-vf', `scale=320:-2${',null'.repeat(300)}`]), "Filter graph of '-vf' has 301 filters"],
  ['401 options', single(many(401, () => '-an') as string[]), 'task.outputs[0].options has 401 entries'],
  ['51 outputs', body(many(51, (i) => ({ file: `o${i}.mp4`, options: [] })) as { file: string; options: string[] }[]), 'task.outputs must be an array of 1 to 50 outputs (got 51)'],
  ['101 inputs', single([], 'out.mp4', many(101, (i) => `${DIR}/i${i}.mp4`) as string[]), 'task.inputs has 101 items'],
  ['numbered pattern without a frame bound', single(['-vf', 'fps=30'], 'thumb_%03d.png'), "Output 'thumb_%03d.png' is a numbered pattern and needs -frames:v"],
  ['numbered pattern over 1000 frames', single(['-frames:v', '5000'], 'thumb_%03d.png'), 'with n at most 1000'],
  // ffmpeg applies the last -frames matching the stream: this one wrote 3,165 files before the watch stopped it.
  ['numbered pattern with a later, larger -frames:v:0', single(['-frames:v', '5', '-frames:v:0', '100000'], 'fr%d.png'), "Output 'fr%d.png' is a numbered pattern and needs -frames:v <n> with n at most 1000"],
  ['numbered pattern with a later, larger -frames:0', single(['-frames:v', '5', '-frames:0', '5000'], 'fr%d.png'), 'with n at most 1000'],
  ['numbered pattern with -vframes and a larger -frames', single(['-vframes', '10', '-frames', '2000'], 'fr%d.png'), 'with n at most 1000'],
  // The image muxer writes a file per packet of each stream; -frames bounds one stream.
  ['numbered pattern with two -map', single(['-map', '0:v', '-map', '0:v', '-frames:v', '3'], 'fr%d.png'), "Output 'fr%d.png' is a numbered pattern and writes one stream: give at most one -map"],
  ['numbered pattern mapping every stream', single(['-map', '0', '-frames:v', '3'], 'fr%d.png'), 'writes one stream: give at most one -map'],
  ['numbered pattern with video and audio', single(['-map', '0:v:0', '-map', '0:a', '-c:a', 'pcm_s16le', '-frames:v', '3'], 'fr%d.png'), 'writes one stream'],
  ['numbered pattern taking two graph outputs', single(['-filter_complex', '[0:v]split[a][b]', '-map', '[a]', '-map', '[b]', '-frames:v', '3'], 'fr%d.png'), 'writes one stream'],
  ['numbered pattern first, with a complex graph', single(['-filter_complex', '[0:v]split', '-frames:v', '3'], 'fr%d.png'), "Output 'fr%d.png' is a numbered pattern and cannot be the first output of a task with -filter_complex"],
  ['more than 1000 files in all', body(many(3, (i) => ({ file: `t${i}_%d.jpg`, options: ['-frames:v', '400'] })) as { file: string; options: string[] }[]), 'The task can write up to 1200 files'],
  ['other % sequences in a name', single([], 'out_%s.png'), "task.outputs[0].file 'out_%s.png' has an unsupported % sequence"],
];

const muxers: Row[] = [
  ['-f tee', single(['-f', 'tee', '-map', '0']), "Muxer 'tee' is not allowed for -f"],
  ['-f segment', single(['-f', 'segment']), "Muxer 'segment' is not allowed for -f"],
  ['-f hls', single(['-f', 'hls'], 'out.m3u8'), "Muxer 'hls' is not allowed for -f"],
  ['-f dash', single(['-f', 'dash'], 'out.mpd'), "Muxer 'dash' is not allowed for -f"],
  ['-f image2', single(['-f', 'image2', '-frames:v', '1'], 'x.png'), "Muxer 'image2' is not allowed for -f"],
  ['-f image2pipe', single(['-f', 'image2pipe']), "Muxer 'image2pipe' is not allowed for -f"],
  ['-f rtp', single(['-f', 'rtp']), "Muxer 'rtp' is not allowed for -f"],
  ['-f null', single(['-f', 'null']), "Muxer 'null' is not allowed for -f"],
  ['HLS chosen by extension', single(['-c', 'copy'], 'playlist.m3u8'), "Output 'playlist.m3u8' needs an allowed extension"],
  ['DASH chosen by extension', single(['-c', 'copy'], 'manifest.mpd'), "Output 'manifest.mpd' needs an allowed extension"],
  ['hls segment options', single(['-hls_segment_filename', '/tmp/seg%d.ts']), "Option '-hls_segment_filename' is not allowed"],
  ['encoder not on the list', single(['-c:v', 'h264_vaapi']), "Value 'h264_vaapi' of '-c:v'"],
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
    const err = refusal(() => validateTask(task, { allowWebhook: true }));
    expect(err.status).toBe(400);
    expect(err.kind).toBe('bad_request');
    expect(err.message).toContain(names);
  });
});
