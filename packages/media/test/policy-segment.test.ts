// Segment outputs (-f segment out_%03d.mp4): accepted with a numbered name, bounded by the task's
// file budget (-segment_wrap pinned), the segment list a plain name next to the parts; every
// option that names files or URLs refused.
import { body, DIR, plan, refused, single } from './policy-fixtures.js';

const SPLIT = ['-f', 'segment', '-segment_time', '3', '-reset_timestamps', '1'];

describe('segment outputs', () => {
  test('the recipe plans: numbered parts, the share of the file budget pinned as -segment_wrap', () => {
    const p = plan(single(['-c', 'copy', '-map', '0', ...SPLIT], 'out_%03d.mp4'));
    expect(p.outputs[0]).toMatchObject({ kind: 'segments', muxer: 'segment', maxFiles: 1000 });
    expect(p.outputs[0]!.args.slice(-2)).toEqual(['-segment_wrap', '1001']);
    const parts = new RegExp(p.outputs[0]!.extraFiles!);
    expect(['out_000.mp4', 'out_1000.mp4'].every((n) => parts.test(n))).toBe(true);
    expect(parts.test('out_00.mp4')).toBe(false);
  });

  test('re-encoding parts take the encoders of the name (libx264 for .mp4); the share is split between outputs', () => {
    const p = plan(
      body([
        { file: 'a_%03d.mp4', options: ['-force_key_frames', 'expr:gte(t,n_forced*3)', ...SPLIT] },
        { file: 'thumb_%03d.jpg', options: [] },
        { file: 'whole.mp4', options: [] },
      ]),
    );
    expect(p.outputs.map((o) => o.maxFiles)).toEqual([499, 499, 1]);
    expect(p.outputs[0]!.args.slice(-2)).toEqual(['-segment_wrap', '500']);
    // -crf is an option of libx264, the encoder ffmpeg picks for .mp4 parts.
    expect(plan(single([...SPLIT, '-crf', '23'], 'p_%d.mp4')).outputs[0]!.kind).toBe('segments');
  });

  test('split points count: -segment_times with 3 points is 4 files; the first number moves the wrap', () => {
    const p = plan(single(['-f', 'segment', '-segment_times', '1,2,3', '-segment_start_number', '5'], 'p_%02d.mkv'));
    expect(p.outputs[0]).toMatchObject({ maxFiles: 4, segments: { startNumber: 5 } });
    expect(p.outputs[0]!.args.slice(-2)).toEqual(['-segment_wrap', '10']);
    expect(plan(single(['-f', 'segment', '-segment_frames', '10,20'], 'p_%d.ts')).outputs[0]!.maxFiles).toBe(3);
  });

  test('segment_list: a plain name, written next to the parts and counted as a file', () => {
    const p = plan(single([...SPLIT, '-segment_list', 'parts.m3u8', '-segment_list_type', 'm3u8'], 'out_%03d.ts'));
    const o = p.outputs[0]!;
    expect(o.args).toEqual(expect.arrayContaining(['-segment_list', 'file:out/parts.m3u8']));
    expect(o).toMatchObject({ maxFiles: 999, segments: { list: 'parts.m3u8' } });
    expect(new RegExp(o.extraFiles!).test('parts.m3u8')).toBe(true);
    expect(
      plan(single([...SPLIT, '-segment_list', 'list.csv', '-segment_list_entry_prefix', 'https://cdn.example/'], 'o_%d.mp4')).outputs[0]!
        .kind,
    ).toBe('segments');
  });

  test('segment_format and its options are judged as the parts muxer', () => {
    expect(plan(single([...SPLIT, '-segment_format', 'mpegts'], 'p_%03d.mp4')).outputs[0]!.kind).toBe('segments');
    expect(plan(single([...SPLIT, '-segment_format_options', 'movflags=+faststart'], 'p_%03d.mp4')).outputs[0]!.kind).toBe('segments');
  });
});

const LIST = "Option '-segment_list'";
const hostile: Array<[string, unknown, string | RegExp]> = [
  ['a name without a number pattern', single(SPLIT, 'parts.mp4'), "name it with a number pattern such as 'parts_%03d.mp4'"],
  ['a pattern with a directory', single(SPLIT, 'dir/out_%03d.mp4'), "task.outputs[0].file 'dir/out_%03d.mp4' must not contain a slash"],
  ['a pattern climbing out', single(SPLIT, '../out_%03d.mp4'), 'must not contain a slash'],
  [
    'segment_list with a separator',
    single([...SPLIT, '-segment_list', 'sub/list.m3u8'], 'o_%d.ts'),
    `${LIST} 'sub/list.m3u8' must not contain a slash`,
  ],
  [
    'segment_list /etc/x',
    single([...SPLIT, '-segment_list', '/etc/x'], 'o_%d.ts'),
    /'-segment_list'.* (must not contain a slash|must not name a file)/,
  ],
  ['segment_list with a backslash', single([...SPLIT, '-segment_list', '..\\x.csv'], 'o_%d.ts'), /'-segment_list'/],
  ['segment_list as a URL', single([...SPLIT, '-segment_list', 'http://evil.example/l.m3u8'], 'o_%d.ts'), /'-segment_list'.*(a URL|slash)/],
  [
    'segment_list through a protocol',
    single([...SPLIT, '-segment_list', 'file:list.m3u8'], 'o_%d.ts'),
    /'-segment_list'.*protocol 'file:'/,
  ],
  ['segment_list pipe', single([...SPLIT, '-segment_list', 'pipe:1'], 'o_%d.ts'), /'-segment_list'.*protocol 'pipe:'/],
  ['segment_list named like the parts', single([...SPLIT, '-segment_list', 'o_7.ts'], 'o_%d.ts'), "must differ from the parts' names"],
  ['segment_list with %', single([...SPLIT, '-segment_list', 'l%d.csv'], 'o_%d.ts'), 'must not hold %'],
  ['segment_list taking an input name', body([{ file: 'o_%d.ts', options: [...SPLIT, '-segment_list', 'in.mp4'] }]), /in\.mp4/],
  [
    'segment_list given twice',
    single([...SPLIT, '-segment_list', 'a.csv', '-segment_list', '/etc/x'], 'o_%d.ts'),
    "Option '-segment_list' is given more than once",
  ],
  [
    'segment_header_filename',
    single([...SPLIT, '-segment_header_filename', 'h.mp4'], 'o_%d.mp4'),
    /'-segment_header_filename'.* is not allowed/,
  ],
  ['strftime names', single([...SPLIT, '-strftime', '1'], 'o_%d.mp4'), /'-strftime'.* is not allowed/],
  ['segment_wrap set by the task', single([...SPLIT, '-segment_wrap', '100000'], 'o_%d.mp4'), /'-segment_wrap'.* is set by the service/],
  ['a huge first number', single([...SPLIT, '-segment_start_number', '2000000000'], 'o_%d.mp4'), /'-segment_start_number'.* at most 1000/],
  ['parts as HLS', single([...SPLIT, '-segment_format', 'hls'], 'o_%d.ts'), 'use -f hls instead of -f segment'],
  ['parts as images', single([...SPLIT, '-segment_format', 'image2'], 'o_%d.png'), 'writes one file per frame'],
  ['parts through tee', single([...SPLIT, '-segment_format', 'tee'], 'o_%d.ts'), 'with the tee muxer, which is not allowed'],
  ['parts by a device', single([...SPLIT, '-segment_format', 'alsa'], 'o_%d.ts'), 'it is a capture or playback device'],
  ['parts split again', single([...SPLIT, '-segment_format', 'segment'], 'o_%d.ts'), 'a part cannot be split again'],
  ['parts as a playlist by extension', single(SPLIT, 'o_%d.m3u8'), 'use -f hls instead of -f segment'],
  [
    'format options that write files',
    single([...SPLIT, '-segment_format', 'hls', '-segment_format_options', 'hls_segment_filename=x'], 'o_%d.ts'),
    'use -f hls',
  ],
  [
    'format options naming a protocol',
    single([...SPLIT, '-segment_format_options', 'protocol_whitelist=file,http'], 'o_%d.mp4'),
    /protocol_whitelist/,
  ],
  [
    'format options not of the muxer',
    single([...SPLIT, '-segment_format_options', 'hls_time=2'], 'o_%d.mp4'),
    "names 'hls_time', which is not an option of the mp4 muxer",
  ],
  [
    'format options with a path',
    single([...SPLIT, '-segment_format_options', 'brand=/etc/x'], 'o_%d.mp4'),
    /must not name a file|looks like a path/,
  ],
  ['format options quoted', single([...SPLIT, '-segment_format_options', "brand='a:b'"], 'o_%d.mp4'), 'without quotes or escapes'],
  [
    'more split points than the bound',
    single(['-f', 'segment', '-segment_times', Array.from({ length: 1000 }, (_, i) => i + 1).join(',')], 'o_%d.ts'),
    'which makes 1001 parts; a task writes at most 1000 files',
  ],
  [
    'split points over the budget left',
    body([
      { file: 'o_%d.ts', options: ['-f', 'segment', '-segment_frames', Array.from({ length: 600 }, (_, i) => i + 1).join(',')] },
      { file: 't_%d.jpg', options: ['-frames:v', '500'] },
    ]),
    'The task can write up to 1101 files',
  ],
  [
    'two outputs with one segment list',
    body([
      { file: 'a_%03d.ts', options: [...SPLIT, '-segment_list', 'list.m3u8'] },
      { file: 'b_%03d.ts', options: [...SPLIT, '-segment_list', 'list.m3u8'] },
    ]),
    "The segment list 'list.m3u8' of output 'a_%03d.ts' is named like a file of output 'b_%03d.ts'",
  ],
  [
    'a segment list named like a numbered image',
    body([
      { file: 'o_%03d.ts', options: [...SPLIT, '-segment_list', 't_001.png'] },
      { file: 't_%03d.png', options: ['-frames:v', '5'] },
    ]),
    "The segment list 't_001.png' of output 'o_%03d.ts' is named like a file of output 't_%03d.png'",
  ],
  [
    'a segment list named like an HLS segment',
    body([
      { file: 'o_%03d.ts', options: [...SPLIT, '-segment_list', 'v0.ts'] },
      { file: 'v.m3u8', options: [] },
    ]),
    "The segment list 'v0.ts' of output 'o_%03d.ts' is named like a file of output 'v.m3u8'",
  ],
  [
    'a muxer option given to the segment output',
    single([...SPLIT, '-movflags', '+faststart'], 'o_%d.mp4'),
    /'-movflags' has no effect .*-segment_format_options movflags=<value>/,
  ],
];

describe('segment outputs: hostile tasks are refused before anything runs', () => {
  test.each(hostile)('%s', (_title, task, expected) => {
    const message = refused(task);
    if (typeof expected === 'string') expect(message).toContain(expected);
    else expect(message).toMatch(expected);
  });

  test('the input directory is not a way out either', () => {
    expect(refused(body([{ file: 'o_%d.ts', options: [...SPLIT, '-segment_list', `${DIR}/l.csv`] }]))).toContain(
      'must not contain a slash',
    );
  });
});
