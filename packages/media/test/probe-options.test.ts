// The POST /ffprobe/analyze body checks: what passes, how it is normalised, and the exact 400
// sentence of every refusal (limits named).
import { DomainError } from '@media/platform';
import { PROBE_LIMITS, defaultProbeSpec, validateProbeOptions, validateProbeRequest } from '../src/index.js';

function refusal(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(DomainError);
    expect((err as DomainError).status).toBe(400);
    return (err as DomainError).message;
  }
  throw new Error('expected a refusal');
}

const bounded = "only within intervals of at most 30 seconds or 3000 frames (e.g. '%+#100' or '10%+5')";

describe('the body', () => {
  test('file_path alone: format and streams with every entry', () => {
    const req = validateProbeRequest({ file_path: 'dir_abc/clip.mp4' });
    expect(req).toEqual({
      input: { kind: 'uploaded', dirId: 'dir_abc', fileName: 'clip.mp4', filePath: 'dir_abc/clip.mp4' },
      probe: defaultProbeSpec(),
      probeGiven: false,
    });
    expect(req.probe.sections).toEqual({ format: [], streams: [] });
  });

  test('an https URL', () => {
    expect(validateProbeRequest({ file_path: 'https://example.com/a b.mp4'.replace(' ', '%20') }).input).toEqual({
      kind: 'url',
      url: 'https://example.com/a%20b.mp4',
    });
  });

  test.each([
    [null, 'The request body must be a JSON object'],
    [[], 'The request body must be a JSON object'],
    [{}, "Missing required field 'file_path' in request body"],
    [{ file_path: 1 }, "Field 'file_path' in request body must be a string"],
    [{ file_path: 'dir_a/x.mp4', task: {} }, "Unknown field 'task' in request body"],
    [{ file_path: 'no-slash' }, 'Invalid file_path format. Expected <dir_id>/<file_name>'],
    [{ file_path: 'dir a/x.mp4' }, 'Invalid file_path format. Expected <dir_id>/<file_name>'],
    [{ file_path: 'dir_a/' }, 'Invalid file_path format. Expected <dir_id>/<file_name>'],
    [{ file_path: 'dir_a/b/c.mp4' }, 'Invalid file_path format. Expected <dir_id>/<file_name>'],
    [{ file_path: 'http://example.com/a.mp4' }, "file_path 'http://example.com/a.mp4' must be a public HTTPS URL (https://...)"],
    [{ file_path: 'file:///etc/passwd' }, "file_path 'file:///etc/passwd' must be a public HTTPS URL (https://...)"],
  ])('%j -> %s', (body, error) => {
    expect(refusal(() => validateProbeRequest(body))).toBe(error);
  });
});

describe('sections and entries', () => {
  test('entries are kept as asked, duplicates dropped; [] means every entry', () => {
    const spec = validateProbeOptions({
      format: ['duration', 'format_name', 'duration', 'tags', 'tag:title'],
      streams: ['index', 'codec_name', 'disposition', 'side_data_list', 'tag:language'],
      chapters: [],
      error: ['code', 'string'],
    });
    expect(spec.sections).toEqual({
      format: ['duration', 'format_name', 'tags', 'tag:title'],
      streams: ['index', 'codec_name', 'disposition', 'side_data_list', 'tag:language'],
      chapters: [],
      error: ['code', 'string'],
    });
    expect(spec).toMatchObject({ readIntervals: [], countFrames: false, countPackets: false });
  });

  test.each([
    [
      'x',
      'probe must be an object mapping sections (format, streams, chapters, programs, frames, packets, error) to arrays of entry names',
    ],
    [[], 'probe must be an object mapping sections (format, streams, chapters, programs, frames, packets, error) to arrays of entry names'],
    [{}, 'probe must name at least one section: format, streams, chapters, programs, frames, packets, error'],
    [{ select_streams: 'v' }, 'probe must name at least one section: format, streams, chapters, programs, frames, packets, error'],
    [
      { stream: ['index'] },
      "Unknown field 'stream' in probe: sections are format, streams, chapters, programs, frames, packets, error; controls are select_streams, read_intervals, count_frames, count_packets, analyzeduration, probesize",
    ],
    [{ format: 'duration' }, 'probe.format must be an array of entry names ([] for every entry)'],
    [{ format: [1] }, 'probe.format[0] must be a string (an entry name)'],
    [
      { streams: ['index', 'Codec_Name'] },
      "probe.streams[1] 'Codec_Name' is not an entry name: use lower-case identifiers such as codec_name, or tags, tag:<key>, disposition, side_data_list",
    ],
    [
      { streams: ['codec_name=x'] },
      "probe.streams[0] 'codec_name=x' is not an entry name: use lower-case identifiers such as codec_name, or tags, tag:<key>, disposition, side_data_list",
    ],
    [
      { streams: ['index:format'] },
      "probe.streams[0] 'index:format' is not an entry name: use lower-case identifiers such as codec_name, or tags, tag:<key>, disposition, side_data_list",
    ],
    [
      { format: ['-show_data'] },
      "probe.format[0] '-show_data' is not an entry name: use lower-case identifiers such as codec_name, or tags, tag:<key>, disposition, side_data_list",
    ],
    [{ format: ['disposition'] }, "probe.format[0] 'disposition' is not reported for format"],
    [{ error: ['tags'] }, "probe.error[0] 'tags' is not reported for error"],
    [
      { format: ['tag:a,b'] },
      "probe.format[0] 'tag:a,b' names a tag key that is not 1 to 64 letters, digits, dots, hyphens or underscores",
    ],
    [{ format: ['tag:'] }, "probe.format[0] 'tag:' names a tag key that is not 1 to 64 letters, digits, dots, hyphens or underscores"],
    [{ format: Array.from({ length: 101 }, (_, i) => `e${i}`) }, 'probe.format has 101 entries; at most 100 are allowed'],
  ])('%j -> %s', (probe, error) => {
    expect(refusal(() => validateProbeOptions(probe))).toBe(error);
  });
});

describe('controls', () => {
  test('all controls together', () => {
    const spec = validateProbeOptions({
      streams: ['index'],
      frames: ['pts_time'],
      select_streams: 'v:0',
      read_intervals: '%+#100,10%+5',
      count_frames: true,
      count_packets: true,
      analyzeduration: 60,
      probesize: 50_000_000,
    });
    expect(spec).toEqual({
      sections: { streams: ['index'], frames: ['pts_time'] },
      selectStreams: 'v:0',
      readIntervals: ['%+#100', '10%+5'],
      countFrames: true,
      countPackets: true,
      analyzeDurationSec: 60,
      probesizeBytes: 50_000_000,
    });
  });

  test.each(['v', 'a', 's', 'd', 't', 'V', 'v:0', 'a:1', '0', '12', 'p:1', 'p:1:v', 'm:language:eng'])('select_streams %s passes', (s) => {
    expect(validateProbeOptions({ streams: [], select_streams: s }).selectStreams).toBe(s);
  });

  test.each(['', 'x', 'v:', 'v:-1', 'a,v', '0 ', '#0x1', 'v:0:0:0', 1])('select_streams %j is refused', (s) => {
    expect(refusal(() => validateProbeOptions({ streams: [], select_streams: s }))).toMatch(
      /^probe\.select_streams .*must be a stream specifier such as v, a, s, v:0, a:1 or 2$/,
    );
  });

  test.each([
    [{ analyzeduration: 0 }, 'probe.analyzeduration must be a number of seconds greater than 0'],
    [{ analyzeduration: -1 }, 'probe.analyzeduration must be a number of seconds greater than 0'],
    [{ analyzeduration: '5' }, 'probe.analyzeduration must be a number of seconds greater than 0'],
    [{ analyzeduration: 60.5 }, 'probe.analyzeduration may be at most 60 seconds'],
    [{ analyzeduration: 5_000_000 }, 'probe.analyzeduration may be at most 60 seconds'],
    [{ probesize: 31 }, 'probe.probesize must be a whole number of bytes, at least 32'],
    [{ probesize: 1.5e3 + 0.5 }, 'probe.probesize must be a whole number of bytes, at least 32'],
    [{ probesize: '100' }, 'probe.probesize must be a whole number of bytes, at least 32'],
    [{ probesize: 50_000_001 }, 'probe.probesize may be at most 50000000 bytes (50 MB)'],
    [{ count_frames: 'yes' }, 'probe.count_frames must be true or false'],
    [{ count_packets: 1 }, 'probe.count_packets must be true or false'],
    [{ count_frames: true }, `probe.count_frames needs probe.read_intervals: counting reads the whole file, so it is done ${bounded}`],
    [{ count_packets: true }, `probe.count_packets needs probe.read_intervals: counting reads the whole file, so it is done ${bounded}`],
  ])('%j -> %s', (controls, error) => {
    expect(refusal(() => validateProbeOptions({ streams: [], ...controls }))).toBe(error);
  });

  test('limits pass at the edge', () => {
    expect(validateProbeOptions({ format: [], analyzeduration: 0.5, probesize: 32 })).toMatchObject({
      analyzeDurationSec: 0.5,
      probesizeBytes: 32,
    });
    expect(PROBE_LIMITS).toMatchObject({
      maxAnalyzeDurationSec: 60,
      maxProbesizeBytes: 50_000_000,
      maxIntervalSec: 30,
      maxIntervalFrames: 3000,
    });
  });

  test('counting needs the streams section (nb_read_frames is a stream entry)', () => {
    expect(refusal(() => validateProbeOptions({ format: [], read_intervals: '%+#10', count_frames: true }))).toBe(
      'probe.count_frames reports nb_read_frames in the streams section: ask for streams too',
    );
  });
});

describe('read_intervals', () => {
  test.each([
    ['%+#3000'],
    ['%+#1'],
    ['10%+#50'],
    ['+2%+#50'],
    ['%+30'],
    ['10%+5'],
    ['10%+500ms'],
    ['0%+30000000us'],
    ['10%40'],
    ['1.5%2.25'],
    ['00:01:00%00:01:30'],
    ['01:00%+00:30'],
    ['1:00:00%1:00:29.5'],
  ])('%s passes', (interval) => {
    expect(validateProbeOptions({ frames: [], read_intervals: [interval] }).readIntervals).toEqual([interval]);
  });

  test('a comma list and an array mean the same', () => {
    expect(validateProbeOptions({ packets: [], read_intervals: '%+#5,20%+1' }).readIntervals).toEqual(['%+#5', '20%+1']);
    expect(validateProbeOptions({ packets: [], read_intervals: ['%+#5', '20%+1'] }).readIntervals).toEqual(['%+#5', '20%+1']);
  });

  const span = 'probe.read_intervals: an interval may span at most 30 seconds or 3000 frames';
  test.each([
    ['%+#3001', `${span}; '%+#3001' spans 3001 frames`],
    ['%+31', `${span}; '%+31' spans 31 seconds`],
    ['10%+30.5', `${span}; '10%+30.5' spans 30.5 seconds`],
    ['0%+30001ms', `${span}; '0%+30001ms' spans 30.001 seconds`],
    ['10%41', `${span}; '10%41' spans 31 seconds`],
    ['00:00:00%00:01:00', `${span}; '00:00:00%00:01:00' spans 60 seconds`],
    [
      '10',
      "probe.read_intervals: interval '10' has no end; each interval must end within 30 seconds or 3000 frames (e.g. '10%+5' or '%+#100')",
    ],
    [
      '10%',
      "probe.read_intervals: interval '10%' has no end; each interval must end within 30 seconds or 3000 frames (e.g. '10%+5' or '%+#100')",
    ],
    [
      '',
      "probe.read_intervals: interval '' has no end; each interval must end within 30 seconds or 3000 frames (e.g. '10%+5' or '%+#100')",
    ],
    ['%20', "probe.read_intervals: interval '%20' has an absolute end but no absolute start; write START%END or START%+DURATION"],
    ['+5%20', "probe.read_intervals: interval '+5%20' has an absolute end but no absolute start; write START%END or START%+DURATION"],
    ['20%10', "probe.read_intervals: interval '20%10' ends before it starts"],
    ['%+#0', "probe.read_intervals: '%+#0' is not an interval in ffprobe's syntax (e.g. '%+#100', '10%+5', '00:01:00%00:01:20')"],
    ['%#10', "probe.read_intervals: '%#10' is not an interval in ffprobe's syntax (e.g. '%+#100', '10%+5', '00:01:00%00:01:20')"],
    ['-5%+1', "probe.read_intervals: '-5%+1' is not an interval in ffprobe's syntax (e.g. '%+#100', '10%+5', '00:01:00%00:01:20')"],
    ['1%+1%+1', "probe.read_intervals: '1%+1%+1' is not an interval in ffprobe's syntax (e.g. '%+#100', '10%+5', '00:01:00%00:01:20')"],
    ['a%+1', "probe.read_intervals: 'a%+1' is not an interval in ffprobe's syntax (e.g. '%+#100', '10%+5', '00:01:00%00:01:20')"],
    [' 1%+1', "probe.read_intervals: ' 1%+1' is not an interval in ffprobe's syntax (e.g. '%+#100', '10%+5', '00:01:00%00:01:20')"],
    ['1%+1s5', "probe.read_intervals: '1%+1s5' is not an interval in ffprobe's syntax (e.g. '%+#100', '10%+5', '00:01:00%00:01:20')"],
    ['00:60%+1', "probe.read_intervals: '00:60%+1' is not an interval in ffprobe's syntax (e.g. '%+#100', '10%+5', '00:01:00%00:01:20')"],
  ])('%j -> %s', (interval, error) => {
    expect(refusal(() => validateProbeOptions({ frames: [], read_intervals: interval }))).toBe(error);
  });

  test.each([
    [5, "probe.read_intervals must be a string or an array of strings in ffprobe's syntax (e.g. '%+#100', '10%+5', '00:01:00%00:01:20')"],
    [
      ['%+1', 2],
      "probe.read_intervals must be a string or an array of strings in ffprobe's syntax (e.g. '%+#100', '10%+5', '00:01:00%00:01:20')",
    ],
    [[], 'probe.read_intervals must hold at least one interval'],
    [Array.from({ length: 11 }, () => '%+1').join(','), 'probe.read_intervals has 11 intervals; at most 10 are allowed'],
  ])('%j -> %s', (raw, error) => {
    expect(refusal(() => validateProbeOptions({ packets: [], read_intervals: raw }))).toBe(error);
  });

  test('frames and packets need read_intervals', () => {
    expect(refusal(() => validateProbeOptions({ frames: ['pts_time'] }))).toBe(
      `probe.frames needs probe.read_intervals: frames and packets are reported ${bounded}`,
    );
    expect(refusal(() => validateProbeOptions({ streams: [], packets: [] }))).toBe(
      `probe.packets needs probe.read_intervals: frames and packets are reported ${bounded}`,
    );
  });

  test('bounds apply to read_intervals whatever the sections', () => {
    expect(refusal(() => validateProbeOptions({ format: [], read_intervals: '%+60' }))).toMatch(
      /may span at most 30 seconds or 3000 frames/,
    );
  });
});
