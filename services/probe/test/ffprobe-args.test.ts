// From a checked probe to ffprobe's options, and from ffprobe's JSON to the result object.
import { defaultProbeSpec, validateProbeOptions } from '@media/media';
import { ffprobeArgs, showEntries } from '../src/domain/ffprobe-args.js';
import { pickSections } from '../src/domain/result.js';

test('the default: format and streams, every entry', () => {
  expect(ffprobeArgs(defaultProbeSpec())).toEqual(['-show_entries', 'format:stream']);
});

test('entries, tags, one tag, disposition and side data map to ffprobe section names', () => {
  const spec = validateProbeOptions({
    format: ['duration', 'tag:title', 'tag:artist'],
    streams: ['index', 'codec_name', 'tags', 'tag:language', 'disposition'],
    chapters: [],
    programs: ['program_id'],
    error: [],
  });
  expect(showEntries(spec)).toBe(
    'format=duration:format_tags=title,artist:stream=index,codec_name:stream_tags:stream_disposition:chapter:program=program_id:error',
  );
});

test('frames and packets with every control', () => {
  const spec = validateProbeOptions({
    streams: ['index'],
    frames: ['pts_time', 'side_data_list'],
    packets: [],
    select_streams: 'v:0',
    read_intervals: ['%+#10', '1%+0.5'],
    count_frames: true,
    count_packets: true,
    analyzeduration: 2.5,
    probesize: 1_000_000,
  });
  expect(ffprobeArgs(spec)).toEqual([
    '-show_entries',
    'stream=index,nb_read_frames,nb_read_packets:frame=pts_time:frame_side_data_list:packet',
    '-select_streams',
    'v:0',
    '-read_intervals',
    '%+#10,1%+0.5',
    '-count_frames',
    '-count_packets',
    '-analyzeduration',
    '2500000',
    '-probesize',
    '1000000',
  ]);
});

test('the result has exactly the sections asked for; frames and packets are split apart', () => {
  const spec = validateProbeOptions({
    format: ['filename', 'duration'],
    frames: [],
    packets: [],
    chapters: [],
    error: [],
    read_intervals: '%+#2',
  });
  const json = {
    programs: [],
    format: { filename: 'file:in/0', duration: '2.0' },
    packets_and_frames: [
      { type: 'packet', pts_time: '0.0' },
      { type: 'frame', media_type: 'video', pts_time: '0.0' },
      { type: 'subtitle', pts_time: '1.0' },
    ],
  };
  expect(pickSections(json, spec, 'dir_a/clip.mp4')).toEqual({
    format: { filename: 'dir_a/clip.mp4', duration: '2.0' },
    frames: [{ media_type: 'video', pts_time: '0.0' }, { pts_time: '1.0' }],
    packets: [{ pts_time: '0.0' }],
    chapters: [],
    error: null,
  });
  expect(pickSections({}, validateProbeOptions({ format: ['duration'] }), 'x/y')).toEqual({ format: {} });
});

test('items keep only the entries asked for (ffprobe adds empty sub-sections), tags and counts included', () => {
  const spec = validateProbeOptions({
    streams: ['index', 'tag:language'],
    frames: ['pts_time'],
    packets: [],
    count_frames: true,
    read_intervals: '%+#2',
  });
  const json = {
    streams: [{ index: 0, nb_read_frames: '5', tags: { language: 'eng' }, disposition: {} }],
    frames: [{ pts_time: '0.0', side_data_list: [{}] }],
    packets: [{ pts_time: '0.0', size: '10', side_data_list: [{ side_data_type: 'x' }] }],
  };
  expect(pickSections(json, spec, 'd/f')).toEqual({
    streams: [{ index: 0, nb_read_frames: '5', tags: { language: 'eng' } }],
    frames: [{ pts_time: '0.0' }],
    // A whole section asked for is passed as ffprobe printed it.
    packets: [{ pts_time: '0.0', size: '10', side_data_list: [{ side_data_type: 'x' }] }],
  });
  const asked = validateProbeOptions({ frames: ['pts_time', 'side_data_list'], read_intervals: '%+#2' });
  expect(pickSections({ frames: [{ pts_time: '1', side_data_list: [{}] }] }, asked, 'd/f')).toEqual({
    frames: [{ pts_time: '1', side_data_list: [{}] }],
  });
});
