// The scoped allowances of the task model (issue 27): input options, the anchor's task fields,
// image sequences, concat lists, side files for text/subtitles/fonts, HLS and DASH, analysis runs,
// FFmpeg's own spellings. Each is shown to plan as a user means it, and to refuse what would read
// a file the service did not stage, open the network, or run without end.
import { body, DIR, plan, refused, single } from './policy-fixtures.js';

const IN = `${DIR}/in.mp4`;
const IMG = `${DIR}/image.png`;
const AUDIO = `${DIR}/audio.mp3`;

describe('input options', () => {
  test('seek and duration before -i', () => {
    const p = plan(
      body([{ file: 'out.mp4', options: ['-c', 'copy'] }], [{ file_path: IN, options: ['-ss', '10', '-t', '5', '-accurate_seek'] }]),
    );
    expect(p.inputs[0]).toMatchObject({ kind: 'media', args: ['-ss', '10', '-t', '5', '-accurate_seek'], endless: false });
  });

  test('a still image looped with -loop 1 and bounded by -shortest or -t', () => {
    const still = [{ file_path: IMG, options: ['-loop', '1', '-framerate', '2'] }, AUDIO];
    const p = plan(
      body(
        [{ file: 'out.mp4', options: ['-c:v', 'libx264', '-tune', 'stillimage', '-c:a', 'aac', '-pix_fmt', 'yuv420p', '-shortest'] }],
        still,
      ),
    );
    expect(p.inputs[0]).toMatchObject({ endless: true, demuxerOptions: ['loop', 'framerate'] });
    expect(plan(body([{ file: 'out.mp4', options: ['-t', '10'] }], still)).outputs[0]!.args).toContain('-t');
    expect(plan(body([{ file: 'out.mp4' }], [{ file_path: IMG, options: ['-loop', '1', '-t', '5'] }])).inputs[0]!.endless).toBe(false);
  });

  test('an endless input with no bound anywhere is refused, saying how to bound it', () => {
    const msg = refused(body([{ file: 'out.mp4', options: ['-c:v', 'libx264'] }], [{ file_path: IMG, options: ['-loop', '1'] }]));
    expect(msg).toBe(
      "Output 'out.mp4' would never end: input 0 plays without end (-loop 1). Bound it: add -t <seconds> to its options (or to the looping input's options), or -shortest if it also takes a finite stream such as an audio track",
    );
    expect(refused(body([{ file: 'out.mp4' }], [{ file_path: IN, options: ['-stream_loop', '-1'] }]))).toContain(
      'input 0 plays without end (-stream_loop -1)',
    );
  });

  test('bounded repetition with -stream_loop N', () => {
    expect(plan(body([{ file: 'out.mp4' }], [{ file_path: IN, options: ['-stream_loop', '3'] }])).inputs[0]!.endless).toBe(false);
    expect(refused(body([{ file: 'out.mp4' }], [{ file_path: IN, options: ['-stream_loop', '100000'] }]))).toContain(
      "Value '100000' of '-stream_loop' must be from -1 to 10000",
    );
  });

  test('-f names an allowed demuxer; decoders by name or codec', () => {
    const raw = plan(
      body(
        [{ file: 'out.mp4' }],
        [
          {
            file_path: `${DIR}/frames.yuv`,
            options: ['-f', 'rawvideo', '-video_size', '320x240', '-pixel_format', 'yuv420p', '-framerate', '25'],
          },
        ],
      ),
    );
    expect(raw.inputs[0]).toMatchObject({
      demuxer: 'rawvideo',
      probeArgs: ['-video_size', '320x240', '-pixel_format', 'yuv420p', '-framerate', '25'],
    });
    expect(plan(body([{ file: 'out.mp4' }], [{ file_path: IN, options: ['-c:v', 'h264'] }])).inputs[0]!.args).toEqual(['-c:v', 'h264']);
    expect(refused(body([{ file: 'out.mp4' }], [{ file_path: IN, options: ['-c:v', 'libx264'] }]))).toContain(
      'is not a decoder of this FFmpeg build; it is an encoder',
    );
  });

  test('-f for an input that opens other files, devices or the network is refused', () => {
    for (const [f, why] of [
      ['hls', 'list of other files'],
      ['sdp', 'network'],
      ['tty', 'text'],
      ['v4l2', 'device'],
    ] as const) {
      expect(refused(body([{ file: 'out.mp4' }], [{ file_path: IN, options: ['-f', f] }]))).toMatch(
        new RegExp(`Demuxer '${f}' is not allowed: .*${why}`, 'i'),
      );
    }
    expect(refused(body([{ file: 'out.mp4' }], [{ file_path: IN, options: ['-f', 'image2'] }]))).toContain(
      '-f image2 is for image sequences',
    );
  });

  test('options the service pins cannot be given: a mov reference, a whitelist', () => {
    expect(refused(body([{ file: 'out.mp4' }], [{ file_path: IN, options: ['-f', 'mov', '-enable_drefs', '1'] }]))).toMatch(
      /'-enable_drefs'.* is set by the service/,
    );
    expect(refused(body([{ file: 'out.mp4' }], [{ file_path: IN, options: ['-protocol_whitelist', 'file,http,tcp'] }]))).toMatch(
      /is set by the service|not allowed/,
    );
  });

  test("concat's -safe, as the wiki writes it, is accepted and dropped: the service gives -safe 1 to the list it rewrote", () => {
    const input = plan(body([{ file: 'out.mp4' }], [{ file_path: `${DIR}/list.txt`, options: ['-f', 'concat', '-safe', '0'] }])).inputs[0]!;
    expect(input).toMatchObject({ kind: 'concat', args: [] });
    expect(refused(body([{ file: 'out.mp4' }], [{ file_path: `${DIR}/list.txt`, options: ['-f', 'concat', '-safe', '2'] }]))).toContain(
      "Value '2' of option '-safe' must be 0 or 1",
    );
  });

  test('input options that belong to outputs, and output options that belong to inputs, say where they go', () => {
    expect(refused(body([{ file: 'out.mp4' }], [{ file_path: IN, options: ['-shortest'] }]))).toContain(
      "is an output option: put it in the output's options",
    );
    expect(refused(single(['-stream_loop', '2']))).toContain('is an input option: put it in the options of the input');
    // An encoder option before -i: where it goes, naming only encoders the service runs (issue 43).
    const preset = refused(body([{ file: 'out.mp4' }], [{ file_path: IN, options: ['-preset', 'fast'] }]));
    expect(preset).toMatch(
      /^Option '-preset' has no effect on input 0 \(.*\): it is an encoder option \(of the .*libx264.* encoders\); give it among the output's options \(task\.outputs\[i\]\.options\)$/,
    );
    expect(preset).not.toMatch(/nvenc|_qsv|vaapi/);
    // -loop 1 on an MP4 output did nothing but make a one-frame video.
    expect(refused(single(['-loop', '1']))).toMatch(
      /Option '-loop' has no effect on output 'out.mp4' \(mp4 muxer; libx264, aac encoders\): it is an option of the .* muxers and the .* demuxers; if it is meant for an input, put it in that input's options/,
    );
  });
});

describe("the anchor's task fields", () => {
  test('task.filter_complex with outputs[].maps, as ffmpeg-api.com documents it', () => {
    const p = plan(
      body([{ file: 'side_by_side.mp4', options: ['-c:v', 'libx264'], maps: ['[out]'] }], [`${DIR}/left.mp4`, `${DIR}/right.mp4`], {
        filter_complex: '[0:v]scale=960:540[l];[1:v]scale=960:540[r];[l][r]hstack[out]',
      }),
    );
    expect(p.filterComplex).toBe('[0:v]scale=w=960:h=540[l];[1:v]scale=w=960:h=540[r];[l][r]hstack[out]');
    expect(p.outputs[0]!.args.slice(0, 2)).toEqual(['-map', '[out]']);
  });

  test('maps naming labels nobody produces, or inputs the task lacks, are refused', () => {
    expect(refused(body([{ file: 'o.mp4', maps: ['[nope]'] }]))).toContain(
      '-map [nope] of task.outputs[0] selects a label that no filter_complex graph produces',
    );
    expect(refused(body([{ file: 'o.mp4', maps: ['3:v'] }]))).toContain('refers to input 3');
  });

  test('output_dir_id must be a directory id', () => {
    expect(plan(body([{ file: 'o.mp4' }], [IN], { output_dir_id: 'dir_target' })).outputDirId).toBe('dir_target');
    expect(refused(body([{ file: 'o.mp4' }], [IN], { output_dir_id: '../x' }))).toContain(
      "task.output_dir_id '../x' is not a directory id",
    );
  });
});

describe('image sequences', () => {
  test('a numbered pattern of image files with -framerate', () => {
    const p = plan(
      body(
        [{ file: 'out.mp4', options: ['-c:v', 'libx264', '-pix_fmt', 'yuv420p'] }],
        [{ file_path: `${DIR}/img_%03d.png`, options: ['-framerate', '10'] }],
      ),
    );
    expect(p.inputs[0]).toMatchObject({
      kind: 'sequence',
      source: { kind: 'uploaded', dirId: DIR, fileName: 'img_%03d.png' },
      args: ['-framerate', '10'],
    });
  });

  test('only image names, no glob; -start_number is where staging starts', () => {
    expect(refused(body([{ file: 'o.mp4' }], [`${DIR}/part_%03d.txt`]))).toContain('patterns name image sequences');
    expect(refused(body([{ file: 'o.mp4' }], [{ file_path: `${DIR}/img_%03d.png`, options: ['-pattern_type', 'glob'] }]))).toContain(
      'set by the service for image sequences',
    );
    expect(
      plan(body([{ file: 'o.mp4' }], [{ file_path: `${DIR}/img_%03d.png`, options: ['-start_number', '5'] }])).inputs[0],
    ).toMatchObject({ kind: 'sequence', startNumber: 5, args: [] });
    expect(refused(body([{ file: 'o.mp4' }], [{ file_path: `${DIR}/img_%03d.png`, options: ['-start_number', '-1'] }]))).toContain(
      'must be a whole number',
    );
  });
});

describe('concat lists', () => {
  test('an uploaded list with -f concat', () => {
    expect(
      plan(body([{ file: 'o.mp4', options: ['-c', 'copy'] }], [{ file_path: `${DIR}/list.txt`, options: ['-f', 'concat'] }])).inputs[0],
    ).toMatchObject({ kind: 'concat' });
  });

  test('a list from a URL is refused (its entries must be files of the directory)', () => {
    expect(refused(body([{ file: 'o.mp4' }], [{ file_path: 'https://media.example.com/list.txt', options: ['-f', 'concat'] }]))).toContain(
      'must be an uploaded file',
    );
  });
});

describe('side files: text, subtitles, fonts', () => {
  const withSide = (vf: string, side: string) => body([{ file: 'o.mp4', options: ['-vf', vf] }], [IN, `${DIR}/${side}`]);

  test('drawtext with text= uses the service fonts', () => {
    const p = plan(single(['-vf', "drawtext=text='Hello, world':fontsize=24:fontcolor=white:x=10:y=10"]));
    // Both escaping levels: ',' and ' ' for the graph, then the option value's own.
    expect(p.outputs[0]!.args[1]).toContain('drawtext=text=Hello\\,\\\\\\ world:fontsize=24');
  });

  test('fontfile=, textfile= and subtitles= name task inputs, staged as side files', () => {
    const p = plan(withSide('drawtext=fontfile=font.ttf:text=Hi', 'font.ttf'));
    expect(p.inputs[1]).toMatchObject({ kind: 'side', side: { use: 'font', path: 'side/1.ttf' } });
    expect(p.outputs[0]!.args[1]).toBe('drawtext=fontfile=side/1.ttf:text=Hi');
    expect(plan(withSide(`subtitles=${DIR}/subs.srt`, 'subs.srt')).inputs[1]).toMatchObject({
      kind: 'side',
      side: { use: 'subtitles', path: 'side/1.srt' },
    });
    expect(plan(withSide('drawtext=textfile=caption.txt', 'caption.txt')).inputs[1]).toMatchObject({ side: { use: 'text' } });
  });

  test('any other path or file is refused', () => {
    for (const vf of [
      'drawtext=fontfile=/usr/share/fonts/x.ttf:text=a',
      'drawtext=textfile=/etc/passwd',
      'subtitles=/etc/passwd',
      'subtitles=../x.srt',
      `ass=${DIR}/other.ass`,
    ]) {
      expect(refused(single(['-vf', vf]))).toMatch(/which is not an input of the task/);
    }
    expect(refused(single(['-vf', "drawtext=font='Sans\\:file=/etc/passwd':text=a"]))).toContain('must be a font family');
    expect(refused(withSide('subtitles=subs.srt:fontsdir=/etc', 'subs.srt'))).toContain(
      "Option 'fontsdir' of filter 'subtitles' is not allowed",
    );
  });

  test('side files come after the media inputs and have no streams', () => {
    expect(refused(body([{ file: 'o.mp4', options: ['-vf', 'subtitles=subs.srt'] }], [`${DIR}/subs.srt`, IN]))).toContain(
      'is a media input after a side file',
    );
    expect(refused(body([{ file: 'o.mp4', options: ['-vf', 'subtitles=subs.srt', '-map', '1'] }], [IN, `${DIR}/subs.srt`]))).toContain(
      'which is a file read by a filter or -attach',
    );
    expect(
      refused(
        body(
          [{ file: 'o.mp4', options: ['-vf', 'subtitles=subs.srt'] }],
          [IN, { file_path: `${DIR}/subs.srt`, options: ['-itsoffset', '1'] }],
        ),
      ),
    ).toContain('takes no options');
  });
});

describe('outputs: numbered images, HLS, DASH, analysis reports', () => {
  test('numbered images without -frames get the task file budget; ffmpeg stops there cleanly', () => {
    const p = plan(single(['-vf', 'fps=1'], 'out_%03d.png'));
    expect(p.outputs[0]).toMatchObject({ kind: 'numbered', maxFiles: 1000 });
    expect(p.outputs[0]!.args.slice(-5)).toEqual(['-an', '-sn', '-dn', '-frames', '1000']);
    const two = plan(
      body([
        { file: 'a_%d.png', options: ['-vf', 'fps=1'] },
        { file: 'b_%d.jpg', options: ['-vf', 'fps=2'] },
        { file: 'poster.jpg', options: ['-frames:v', '1'] },
      ]),
    );
    expect(two.outputs.map((o) => o.maxFiles)).toEqual([499, 499, 1]);
  });

  test('HLS: segment names derived from the playlist, file options pinned', () => {
    const p = plan(single(['-c:v', 'libx264', '-c:a', 'aac', '-f', 'hls', '-hls_time', '2', '-hls_playlist_type', 'vod'], 'playlist.m3u8'));
    expect(p.outputs[0]).toMatchObject({ kind: 'hls', muxer: 'hls', maxFiles: 0 });
    expect(p.outputs[0]!.args.slice(-2)).toEqual(['-hls_segment_filename', 'file:out/playlist%d.ts']);
    expect(new RegExp(p.outputs[0]!.extraFiles!).test('playlist12.ts')).toBe(true);
    expect(plan(single(['-hls_segment_type', 'fmp4'], 'p.m3u8')).outputs[0]!.args).toEqual(
      expect.arrayContaining(['-hls_fmp4_init_filename', 'p_init.mp4']),
    );
  });

  test('HLS and DASH options that write elsewhere, read keys or speak HTTP are refused', () => {
    expect(refused(single(['-hls_segment_filename', '/tmp/seg%d.ts'], 'p.m3u8'))).toMatch(
      /'-hls_segment_filename'.* is set by the service/,
    );
    expect(refused(single(['-hls_key_info_file', 'keys.txt'], 'p.m3u8'))).toMatch(/'-hls_key_info_file'.* is not allowed/);
    expect(refused(single(['-method', 'PUT'], 'p.m3u8'))).toMatch(/'-method'.* is not allowed/);
    expect(refused(single(['-f', 'hls'], 'p.mp4'))).toContain('its name must end with .m3u8');
    expect(refused(single(['-init_seg_name', '../init.m4s'], 'm.mpd'))).toMatch(/'-init_seg_name'.* is set by the service/);
    expect(plan(single(['-f', 'dash', '-seg_duration', '2'], 'manifest.mpd')).outputs[0]!.args).toEqual(
      expect.arrayContaining(['-init_seg_name', 'manifest-init-stream$RepresentationID$.$ext$']),
    );
  });

  test('-f null is an analysis run: the output file holds the report of the filters that measure', () => {
    const p = plan(single(['-af', 'loudnorm=print_format=json', '-f', 'null'], 'loudness.json'));
    expect(p.outputs[0]).toMatchObject({ kind: 'report', muxer: 'null', report: { format: 'json', instances: ['o0_loudnorm_0'] } });
    expect(p.outputs[0]!.args[1]).toBe('loudnorm@o0_loudnorm_0=print_format=json');
    expect(plan(single(['-af', 'volumedetect', '-f', 'null'], 'volume.txt')).outputs[0]!.report!.format).toBe('text');
  });
});

describe('values as FFmpeg reads them', () => {
  test.each([
    ['-ar 48k', ['-ar', '48k']],
    ['-ar 44100.0', ['-ar', '44100.0']],
    ['-threads 0 (auto)', ['-threads', '0']],
    ['-s 640X480', ['-s', '640X480']],
    ['-b:v 2.5M', ['-b:v', '2.5M']],
    ['scale to a named size', ['-vf', 'scale=hd720']],
    ['scale to a size with any separator', ['-vf', 'scale=640x480']],
    ['a source with a named size', ['-vf', 'scale=s=qvga']],
    ['fps by name', ['-vf', 'fps=ntsc']],
    ['colour with alpha', ['-vf', 'drawbox=color=Red@0.5:t=fill']],
    ['reverse and areverse (memory-bound by the sandbox)', ['-vf', 'reverse', '-af', 'areverse']],
    ['zoompan', ['-vf', "zoompan=z='min(zoom+0.0015,1.5)':d=125:s=320x240"]],
    ['minterpolate', ['-vf', 'minterpolate=fps=60']],
    ['a metadata value of 8,000 characters', ['-metadata', `comment=${'a'.repeat(8000)}`]],
  ])('%s', (_t, options) => {
    expect(() => plan(single(options))).not.toThrow();
  });

  test('generator sources in filter_complex, bounded by a duration or the output', () => {
    expect(() =>
      plan(
        body([{ file: 'o.mp4', options: ['-map', '0:v', '-map', '[a]', '-shortest'] }], [IN], {
          filter_complex: 'anullsrc=r=44100:cl=stereo[a]',
        }),
      ),
    ).not.toThrow();
    expect(() => plan(body([{ file: 'o.mp4', maps: ['[v]'] }], [IN], { filter_complex: 'color=c=black:s=320x240:d=3[v]' }))).not.toThrow();
    expect(refused(body([{ file: 'o.mp4', maps: ['[v]'] }], [IN], { filter_complex: 'color=c=black:s=320x240[v]' }))).toContain(
      "filter 'color' has no duration (d=)",
    );
    expect(refused(single(['-vf', 'loop=loop=-1:size=10']))).toContain("filter 'loop' loops without end (loop=-1)");
    expect(refused(single(['-af', 'apad']))).toContain("filter 'apad' pads without end");
    expect(() => plan(single(['-af', 'apad', '-shortest']))).not.toThrow();
  });
});
