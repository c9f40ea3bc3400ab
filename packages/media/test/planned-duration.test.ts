// The planned duration a run's progress is measured against (issue 43): real tasks planned with
// planTask, as Jobs plans them, over inputs of known length, rate and streams (what staging
// probes), checked against what ffmpeg 5.1 itself reports as the final out_time for the same
// options (tried by hand on a 6 s testsrc file: `-ss 1 -to 3 -i` ends at 2 s, `-i -ss 1 -to 2` at 1 s).
import { concatDurationSec, plannedDurationSec, sequenceTiming, type TimedInput } from '../src/ffmpeg/index.js';
import { parseConcatList } from '../src/policy/index.js';
import { body, DIR, plan, type InputSpec, type OutputSpec } from './policy-fixtures.js';

const IN = `${DIR}/in.mp4`;
const AUDIO = `${DIR}/music.m4a`;
const IMAGE = `${DIR}/cover.png`;
/** A 60 s video with audio at 25 fps: the file of the report. */
const SIXTY: Partial<TimedInput> = { durationSec: 60, fps: 25, streams: ['video', 'audio'] };

/** The planned duration of a task, its media inputs staged with the given facts (in order). */
function planned(outputs: OutputSpec[], inputs: InputSpec[] = [IN], staged: Array<Partial<TimedInput>> = [SIXTY], extra = {}) {
  const p = plan(body(outputs, inputs, extra));
  const open = p.inputs.filter((i) => i.kind !== 'side').map((i, k) => ({ args: i.args, ...staged[k] }));
  return plannedDurationSec({ inputs: open, filterComplex: p.filterComplex, outputs: p.outputs });
}
const withInputOptions = (options: string[], staged = [SIXTY]) => planned([{ file: 'out.mp4' }], [{ file_path: IN, options }], staged);
const withOutputOptions = (options: string[], staged = [SIXTY]) => planned([{ file: 'out.mp4', options }], [IN], staged);

describe('planned duration: trims on the input', () => {
  test.each([
    ['untrimmed: the whole input', [], 60],
    ['-t 25 (the issue: it finished while progress showed 37 %)', ['-t', '25'], 25],
    ['-t longer than the file', ['-t', '100'], 60],
    ['-to 20', ['-to', '20'], 20],
    ['-ss 10 -to 20: to is a position in the input', ['-ss', '10', '-to', '20'], 10],
    ['-ss 10 -t 5', ['-ss', '10', '-t', '5'], 5],
    ['-t wins over -to', ['-t', '5', '-to', '30'], 5],
    ['-ss 50 alone: the rest of the file', ['-ss', '50'], 10],
    ['-ss in sexagesimal form', ['-ss', '00:00:45.5'], 14.5],
    ['-sseof -5: the last 5 s', ['-sseof', '-5'], 5],
    ['-stream_loop 2: three times the file', ['-stream_loop', '2'], 180],
    ['-stream_loop 2 -t 70', ['-stream_loop', '2', '-t', '70'], 70],
    ['-itsoffset 3: the output ends 3 s later', ['-itsoffset', '3'], 63],
  ])('%s', (_what, options, expected) => {
    expect(withInputOptions(options)).toBeCloseTo(expected, 6);
  });
});

describe('planned duration: trims on the output', () => {
  test.each([
    ['-t 3', ['-t', '3'], 3],
    ['-ss 10: the output starts 10 s in', ['-ss', '10'], 50],
    ['-ss 2 -t 3', ['-ss', '2', '-t', '3'], 3],
    ['-ss 10 -to 25: to is a position in the input', ['-ss', '10', '-to', '25'], 15],
    ['-to 5', ['-to', '5'], 5],
  ])('%s', (_what, options, expected) => {
    expect(withOutputOptions(options)).toBeCloseTo(expected, 6);
  });

  test('input and output trims together: the shorter wins', () => {
    expect(planned([{ file: 'out.mp4', options: ['-t', '10'] }], [{ file_path: IN, options: ['-ss', '55'] }])).toBeCloseTo(5, 6);
  });
});

describe('planned duration: -frames', () => {
  test.each([
    ['-frames:v 50 at the input rate (25 fps)', ['-frames:v', '50'], 2],
    ['-vframes 50 at the output rate -r 10', ['-vframes', '50', '-r', '10'], 5],
    ['-frames 100 without a specifier', ['-frames', '100'], 4],
    ['-frames:v larger than the file: the file', ['-frames:v', '100000'], 60],
    ['-frames:a counts no video frames', ['-frames:a', '10'], 60],
    ['a video filter may change the rate: only -r counts the frames', ['-vf', 'fps=1', '-frames:v', '5'], 60],
    ['-vf with -r: counted at -r', ['-vf', 'scale=160:-2', '-r', '10', '-frames:v', '20'], 2],
  ])('%s', (_what, options, expected) => {
    expect(withOutputOptions(options)).toBeCloseTo(expected, 6);
  });

  test('without a known frame rate, -frames bounds nothing known: the input length stands', () => {
    expect(withOutputOptions(['-frames:v', '50'], [{ durationSec: 60 }])).toBeCloseTo(60, 6);
  });

  test('a numbered output stops at its share of the file budget (1000 frames at 25 fps)', () => {
    expect(planned([{ file: 'thumb_%04d.png' }])).toBeCloseTo(40, 6);
  });
});

describe('planned duration: which inputs an output maps', () => {
  const twoInputs = [IN, AUDIO];
  const audio10: Partial<TimedInput> = { durationSec: 10, streams: ['audio'] };

  test('no -map: the longest of the inputs ffmpeg picks from', () => {
    expect(planned([{ file: 'out.mp4' }], twoInputs, [SIXTY, audio10])).toBeCloseTo(60, 6);
  });

  test('-shortest: the shortest of the mapped inputs', () => {
    expect(planned([{ file: 'out.mp4', maps: ['0:v', '1:a'], options: ['-shortest'] }], twoInputs, [SIXTY, audio10])).toBeCloseTo(10, 6);
  });

  test('-shortest with a trimmed input: the trim counts', () => {
    const inputs = [IN, { file_path: AUDIO, options: ['-ss', '4'] }];
    expect(planned([{ file: 'out.mp4', maps: ['0:v', '1:a'], options: ['-shortest'] }], inputs, [SIXTY, audio10])).toBeCloseTo(6, 6);
  });

  test('-map 1 alone: only that input', () => {
    expect(planned([{ file: 'out.m4a', maps: ['1:a'] }], twoInputs, [SIXTY, audio10])).toBeCloseTo(10, 6);
  });

  test('-vn without -map: an audio-only input is all the output takes', () => {
    const audioOnly = planned([{ file: 'out.m4a', options: ['-vn'] }], [AUDIO, IN], [audio10, { durationSec: 60, streams: ['video'] }]);
    expect(audioOnly).toBeCloseTo(10, 6);
  });

  test('-map of a filter_complex label: the inputs the graph reads', () => {
    const outputs = [{ file: 'out.mp4', maps: ['[v]'] }];
    const extra = { filter_complex: '[1:v]scale=160:120[v]' };
    expect(planned(outputs, [AUDIO, IN], [audio10, SIXTY], extra)).toBeCloseTo(60, 6);
    expect(planned(outputs, [IN, `${DIR}/short.mp4`], [SIXTY, { durationSec: 8, fps: 25 }], extra)).toBeCloseTo(8, 6);
  });
});

describe('planned duration: inputs of unknown length (a looped image, a generated source)', () => {
  test('a looped image bounded by its own -t', () => {
    expect(
      planned([{ file: 'out.mp4' }], [{ file_path: IMAGE, options: ['-loop', '1', '-t', '5'] }], [{ streams: ['video'] }]),
    ).toBeCloseTo(5, 6);
  });

  test('a looped image with an audio track and -shortest: the audio', () => {
    const inputs = [{ file_path: IMAGE, options: ['-loop', '1'] }, AUDIO];
    const staged = [{ streams: ['video'] }, { durationSec: 7, streams: ['audio'] }];
    expect(planned([{ file: 'out.mp4', options: ['-shortest'] }], inputs, staged)).toBeCloseTo(7, 6);
  });

  test('nothing known bounds the run: no planned duration (progress then has no percent)', () => {
    expect(withOutputOptions([], [{ streams: ['video'] }])).toBeUndefined();
  });
});

describe('planned duration: several outputs', () => {
  test('the longest output drives the run (ffmpeg reports the furthest timestamp of all)', () => {
    expect(planned([{ file: 'clip.mp4', options: ['-t', '2'] }, { file: 'full.mp4' }])).toBeCloseTo(60, 6);
    expect(
      planned([
        { file: 'a.mp4', options: ['-t', '2'] },
        { file: 'b.mp4', options: ['-t', '5'] },
      ]),
    ).toBeCloseTo(5, 6);
  });
});

describe('image sequences', () => {
  test('their files at -framerate, else at 25 per second', () => {
    expect(sequenceTiming(50, ['-framerate', '10'])).toEqual({ durationSec: 5, fps: 10 });
    expect(sequenceTiming(50, [])).toEqual({ durationSec: 2, fps: 25 });
  });
});

describe('concat lists', () => {
  const list = (text: string) => parseConcatList(text, 'list');
  test('entries one after another, each cut by inpoint/outpoint, else its duration directive, else its file', () => {
    expect(concatDurationSec(list("file 'a.mp4'\nfile 'b.mp4'\n"), [6, 4])).toBeCloseTo(10, 6);
    expect(concatDurationSec(list("file 'a.mp4'\ninpoint 1\noutpoint 3\nfile 'b.mp4'\nduration 2.5\n"), [6, 4])).toBeCloseTo(4.5, 6);
    expect(concatDurationSec(list("file 'a.mp4'\ninpoint 4\n"), [6])).toBeCloseTo(2, 6);
  });

  test('an entry of unknown length leaves the list unknown', () => {
    expect(concatDurationSec(list("file 'a.mp4'\nfile 'b.mp4'\n"), [6, undefined])).toBeUndefined();
  });
});
