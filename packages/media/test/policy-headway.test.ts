// Runs that would make no headway (issue 39): a read paced below real time, and -shortest taken
// as a bound for an output whose every stream is endless. Each refusal is the exact sentence the
// client sees; the everyday recipes next to them still plan.
import { checkShortestStreams } from '../src/policy/index.js';
import { body, DIR, plan, refusal, refused, single } from './policy-fixtures.js';

const IN = `${DIR}/in.mp4`;
const IMG = `${DIR}/image.png`;
const AUDIO = `${DIR}/audio.mp3`;

describe('reads paced below real time', () => {
  test('-readrate below 1 is refused, naming the option and the fix', () => {
    expect(refused(body([{ file: 'out.mp4' }], [{ file_path: IN, options: ['-readrate', '0.001'] }]))).toBe(
      "Value '0.001' of '-readrate' reads the input slower than real time, which holds a worker slot while the run makes almost no headway: use -re or -readrate 1 (real time) or more, or leave it out to read at full speed",
    );
    expect(refused(body([{ file: 'out.mp4' }], [{ file_path: IN, options: ['-readrate', '0.99'] }]))).toContain(
      "Value '0.99' of '-readrate' reads the input slower than real time",
    );
  });

  test('-re, -readrate 1 or more, and -readrate 0 (not paced) plan', () => {
    for (const options of [['-re'], ['-readrate', '1'], ['-readrate', '2.5'], ['-readrate', '0'], ['-re', '-readrate', '1']]) {
      expect(plan(body([{ file: 'out.mp4' }], [{ file_path: IN, options }])).inputs[0]!.args).toEqual(options);
    }
  });

  test('-itsscale above the read rate paces below real time too', () => {
    expect(refused(body([{ file: 'out.mp4' }], [{ file_path: IN, options: ['-re', '-itsscale', '1000'] }]))).toBe(
      "Option '-itsscale' 1000 with -re reads the input slower than real time (as -readrate 0.001 would), which holds a worker slot while the run makes almost no headway: leave out -re, or give -readrate 1000 or more",
    );
    expect(refused(body([{ file: 'out.mp4' }], [{ file_path: IN, options: ['-itsscale:v', '4', '-readrate', '2'] }]))).toContain(
      "Option '-itsscale' 4 with -readrate 2 reads the input slower than real time (as -readrate 0.5 would)",
    );
    for (const options of [
      ['-itsscale', '1000'],
      ['-re', '-itsscale', '0.5'],
      ['-itsscale', '4', '-readrate', '4'],
    ]) {
      expect(() => plan(body([{ file: 'out.mp4' }], [{ file_path: IN, options }]))).not.toThrow();
    }
  });

  test('realtime and arealtime slower than real time are refused', () => {
    expect(refused(single(['-vf', 'realtime=speed=0.001']))).toBe(
      "Value '0.001' of option 'speed' of filter 'realtime' must be at least 1 (slower than real time holds a worker slot without headway; leave the filter out to run at full speed)",
    );
    expect(refused(single(['-af', 'arealtime=speed=0.5']))).toContain("of option 'speed' of filter 'arealtime' must be at least 1");
    expect(() => plan(single(['-vf', 'realtime', '-af', 'arealtime=speed=2']))).not.toThrow();
  });
});

describe('-shortest is a bound only with a stream that ends', () => {
  test('an aloop graph as the only mapped stream is refused at planning', () => {
    const task = body([{ file: 'out.m4a', options: ['-shortest'], maps: ['[a]'] }], [IN], {
      filter_complex: '[0:a]aloop=loop=-1:size=1000[a]',
    });
    expect(refused(task)).toBe(
      "Output 'out.m4a' would never end: -shortest ends it when its shortest stream ends, but all the streams it maps play without end (filter 'aloop' loops without end (loop=-1)). Bound it: add -t <seconds> to its options, or also map a stream that ends, such as the audio of a file that is not looped (-map 1:a)",
    );
    // With a finite stream mapped beside it, or -t, the same graph plans.
    expect(() =>
      plan(
        body([{ file: 'out.mp4', options: ['-shortest'], maps: ['0:v', '[a]'] }], [IN], {
          filter_complex: '[0:a]aloop=loop=-1:size=1000[a]',
        }),
      ),
    ).not.toThrow();
    expect(() =>
      plan(body([{ file: 'out.m4a', options: ['-t', '10'], maps: ['[a]'] }], [IN], { filter_complex: '[0:a]aloop=loop=-1:size=1000[a]' })),
    ).not.toThrow();
  });

  test('mapped streams of a looped input, optional or taken out again, are no bound', () => {
    const looped = [{ file_path: IN, options: ['-stream_loop', '-1'] }, AUDIO];
    expect(refused(body([{ file: 'out.mp4', options: ['-shortest'], maps: ['0:v', '0:a'] }], looped))).toContain(
      "Output 'out.mp4' would never end: -shortest ends it when its shortest stream ends, but all the streams it maps play without end (input 0 plays without end (-stream_loop -1))",
    );
    expect(refused(body([{ file: 'out.mp4', options: ['-shortest'], maps: ['0:v', '1:a?'] }], looped))).toContain(
      'all the streams it maps',
    );
    expect(refused(body([{ file: 'out.mp4', options: ['-shortest', '-map', '-1:a'], maps: ['0:v', '1:a'] }], looped))).toContain(
      'all the streams it maps',
    );
    // apad makes the finite audio endless too.
    expect(refused(body([{ file: 'out.mp4', options: ['-shortest', '-af', 'apad'], maps: ['0:v', '1:a'] }], looped))).toContain(
      'all the streams it maps',
    );
  });

  test('everyday recipes plan: a looped image or video with a finite audio track', () => {
    const still = [{ file_path: IMG, options: ['-loop', '1'] }, AUDIO];
    const mapped = plan(
      body([{ file: 'out.mp4', options: ['-c:v', 'libx264', '-tune', 'stillimage', '-shortest'], maps: ['0:v', '1:a'] }], still),
    );
    expect(mapped.outputs[0]!.shortest).toBeUndefined();
    const looped = [{ file_path: IN, options: ['-stream_loop', '-1'] }, AUDIO];
    expect(
      plan(body([{ file: 'out.mp4', options: ['-shortest', '-c:v', 'copy'], maps: ['0:v', '1:a'] }], looped)).outputs[0]!.shortest,
    ).toBeUndefined();
    expect(() => plan(single(['-af', 'apad', '-shortest']))).not.toThrow();
  });

  test('without -map, the streams ffmpeg picks are checked once the inputs are probed', () => {
    const still = [{ file_path: IMG, options: ['-loop', '1'] }, AUDIO];
    const p = plan(body([{ file: 'out.mp4', options: ['-c:v', 'libx264', '-shortest'] }], still));
    expect(p.outputs[0]!.shortest).toEqual({ endlessInputs: [0], types: ['video', 'audio'], cause: 'input 0 plays without end (-loop 1)' });
    const outputs = [{ fileName: 'out.mp4', shortest: p.outputs[0]!.shortest! }];
    // The wiki's slideshow: an image looped and an audio file: the audio ends it.
    expect(() =>
      checkShortestStreams(outputs, [
        { args: ['-loop', '1'], streams: ['video'] },
        { args: [], streams: ['audio'] },
      ]),
    ).not.toThrow();
    // A looped image beside a silent video: ffmpeg picks one video (the larger), maybe the endless one.
    expect(
      refusal(() =>
        checkShortestStreams(outputs, [
          { args: ['-loop', '1'], streams: ['video'] },
          { args: [], streams: ['video'] },
        ]),
      ).message,
    ).toBe(
      "Output 'out.mp4' would never end: -shortest ends it when its shortest stream ends, but the streams ffmpeg picks for it (it has no -map) play without end (input 0 plays without end (-loop 1)). Bound it: add -t <seconds> to its options, or name a stream that ends with -map (such as -map 1:a)",
    );
    // A looped video with its own audio: ffmpeg may pick that audio, endless too; -an on it leaves the other.
    const loopedVideo = plan(
      body([{ file: 'out.mp4', options: ['-shortest'] }], [{ file_path: IN, options: ['-stream_loop', '-1'] }, AUDIO]),
    );
    const check = [{ fileName: 'out.mp4', shortest: loopedVideo.outputs[0]!.shortest! }];
    expect(() =>
      checkShortestStreams(check, [
        { args: ['-stream_loop', '-1'], streams: ['video', 'audio'] },
        { args: [], streams: ['audio'] },
      ]),
    ).toThrow('would never end');
    expect(() =>
      checkShortestStreams(check, [
        { args: ['-stream_loop', '-1', '-an'], streams: ['video', 'audio'] },
        { args: [], streams: ['audio'] },
      ]),
    ).not.toThrow();
  });

  test('without -map, an unlabelled aloop graph takes the audio: only a finite video can end the output', () => {
    const p = plan(body([{ file: 'out.mp4', options: ['-shortest'] }], [IN], { filter_complex: '[0:a]aloop=loop=-1:size=1000' }));
    expect(p.outputs[0]!.shortest).toEqual({ endlessInputs: [], types: ['video'], cause: "filter 'aloop' loops without end (loop=-1)" });
    const outputs = [{ fileName: 'out.mp4', shortest: p.outputs[0]!.shortest! }];
    expect(() => checkShortestStreams(outputs, [{ args: [], streams: ['audio'] }])).toThrow('would never end');
    expect(() => checkShortestStreams(outputs, [{ args: [], streams: ['video', 'audio'] }])).not.toThrow();
    // -vn leaves ffmpeg nothing to pick that ends: refused at planning.
    expect(
      refused(body([{ file: 'out.m4a', options: ['-shortest', '-vn'] }], [IN], { filter_complex: '[0:a]aloop=loop=-1:size=1000' })),
    ).toContain('but the streams ffmpeg picks for it play without end');
  });
});
