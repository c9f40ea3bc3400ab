// Analysis runs: the lines of the filters that measure go to the report of the output whose
// filters wrote them; errors stay for the error text; everything else is dropped.
import { ReportCollector } from '../src/ffmpeg/report.js';
import { StderrTail } from '../src/ffmpeg/stderr-tail.js';

// What ffmpeg 5.1 prints with -loglevel level+info (shortened), for two report outputs.
const STDERR = [
  "[info] Input #0, matroska,webm, from 'file:in/0':",
  '[info]   Duration: 00:00:01.00, start: 0.000000, bitrate: 68 kb/s',
  '[cropdetect@o1_cropdetect_0 @ 0x5561cdf6e5c0] [info] x1:0 x2:63 y1:0 y2:63 w:64 h:64 x:0 y:0 pts:83 t:0.083000 crop=64:64:0:0',
  '[info] frame=   25 fps=0.0 q=-0.0 Lsize=N/A time=00:00:01.01 bitrate=N/A speed=66.8x',
  '[volumedetect@o0_volumedetect_0 @ 0x5561cdf10700] [info] n_samples: 44608',
  '[volumedetect@o0_volumedetect_0 @ 0x5561cdf10700] [info] mean_volume: -21.1 dB',
  '[loudnorm@o0_loudnorm_1 @ 0x5561cdf0fbc0] [info] ',
  '{',
  '\t"input_i" : "-21.75",',
  '\t"target_offset" : "-0.05"',
  '}',
  '[aac @ 0x55] [warning] Too many bits',
  '[null @ 0x55] [error] Something broke',
  '[fatal] Conversion failed!',
];

describe('ReportCollector', () => {
  const make = () => {
    const collector = new ReportCollector([
      { fileName: 'audio.json', format: 'json', instances: ['o0_volumedetect_0', 'o0_loudnorm_1'] },
      { fileName: 'crop.txt', format: 'text', instances: ['o1_cropdetect_0'] },
    ]);
    const tail = new StderrTail(collector.filter);
    tail.push(`${STDERR.join('\n')}\n`);
    return { collector, kept: tail.get() };
  };

  test('keeps only the errors for the error text, without their level tag', () => {
    expect(make().kept).toEqual(['[null @ 0x0] Something broke', 'Conversion failed!']);
  });

  test('a JSON report holds each filter with its lines, and JSON a filter printed', () => {
    const { collector } = make();
    const json = JSON.parse(
      collector.render({ fileName: 'audio.json', format: 'json', instances: ['o0_volumedetect_0', 'o0_loudnorm_1'] }),
    );
    expect(json.filters[0]).toEqual({ filter: 'volumedetect', lines: ['n_samples: 44608', 'mean_volume: -21.1 dB'] });
    expect(json.filters[1].filter).toBe('loudnorm');
    expect(json.filters[1].json).toEqual({ input_i: '-21.75', target_offset: '-0.05' });
    expect(json.filters).toHaveLength(2);
  });

  test('lines a filter logs under its name alone (silencedetect, blackdetect) go to the report that has that filter', () => {
    const specs = [
      { fileName: 'silence.json', format: 'json' as const, instances: ['o0_silencedetect_0'], filters: ['silencedetect'] },
      { fileName: 'black.txt', format: 'text' as const, instances: ['o1_blackdetect_0'], filters: ['blackdetect'] },
    ];
    const collector = new ReportCollector(specs);
    const tail = new StderrTail(collector.filter);
    tail.push(
      [
        '[silencedetect @ 0x55] [info] silence_start: 1',
        '[silencedetect @ 0x55] [info] silence_end: 2.5 | silence_duration: 1.5',
        '[blackdetect @ 0x56] [info] black_start:0 black_end:1 black_duration:1',
        '[volumedetect @ 0x57] [info] mean_volume: -3 dB',
        '',
      ].join('\n'),
    );
    expect(JSON.parse(collector.render(specs[0]!)).filters).toEqual([
      { filter: 'silencedetect', lines: ['silence_start: 1', 'silence_end: 2.5 | silence_duration: 1.5'] },
    ]);
    expect(collector.render(specs[1]!)).toBe('[blackdetect] black_start:0 black_end:1 black_duration:1\n');
  });

  test('a text report holds only its own filters', () => {
    const { collector } = make();
    expect(collector.render({ fileName: 'crop.txt', format: 'text', instances: ['o1_cropdetect_0'] })).toBe(
      '[cropdetect] x1:0 x2:63 y1:0 y2:63 w:64 h:64 x:0 y:0 pts:83 t:0.083000 crop=64:64:0:0\n',
    );
  });
});
