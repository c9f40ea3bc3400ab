// Unit tests of the filtergraph reader: it must read names, labels and values exactly as libavfilter
// does (av_get_token quoting and escaping at two levels), and the canonical form must read back the same.
import {
  dimensionProblem,
  escapeGraphArgs,
  escapeOptionValue,
  FilterGraphSyntaxError,
  parseFilterArgs,
  parseFilterGraph,
  serializeFilterGraph,
} from '../src/policy/index.js';

const names = (g: string) => parseFilterGraph(g).filters.map((f) => f.name);

describe('parseFilterGraph', () => {
  test('a chain of filters with arguments', () => {
    const g = parseFilterGraph('scale=320:240,hflip');
    expect(g.filters).toEqual([
      { inputs: [], name: 'scale', args: '320:240', outputs: [], separator: ',' },
      { inputs: [], name: 'hflip', outputs: [], separator: '' },
    ]);
  });

  test('chains separated by ; with labels on both sides', () => {
    const g = parseFilterGraph('[0:v]scale=640:-2[v];[0:a]volume=0.5[a]');
    expect(g.filters.map((f) => [f.inputs, f.name, f.outputs, f.separator])).toEqual([
      [['0:v'], 'scale', ['v'], ';'],
      [['0:a'], 'volume', ['a'], ''],
    ]);
  });

  test('several labels and whitespace around everything', () => {
    const g = parseFilterGraph(' [a] [b] overlay = 10:20 [out] ; [x]null ');
    expect(g.filters[0]).toMatchObject({ inputs: ['a', 'b'], name: 'overlay', args: '10:20', outputs: ['out'] });
    expect(g.filters[1]).toMatchObject({ inputs: ['x'], name: 'null' });
  });

  test('newlines between filters are whitespace', () => {
    expect(names('scale=320:-2,\n  hflip;\n[x]null')).toEqual(['scale', 'hflip', 'null']);
  });

  test('name@id gives the filter name and the instance id', () => {
    const f = parseFilterGraph('scale@small=320:-2').filters[0]!;
    expect(f.name).toBe('scale');
    expect(f.instance).toBe('small');
    expect(names('[in]movie@x=y[out]')).toEqual(['movie']);
  });

  test('quoted and escaped filter names are read as ffmpeg reads them', () => {
    expect(names("'movie'=x")).toEqual(['movie']);
    expect(names('mov\\ie=x')).toEqual(['movie']);
    expect(names("m'ov'ie")).toEqual(['movie']);
    expect(names('movie\\@x')).toEqual(['movie']);
    expect(names('"movie"')).toEqual(['"movie"']);
  });

  test('commas and semicolons inside quotes or escaped stay in the arguments', () => {
    expect(parseFilterGraph("select='eq(n,0)',null").filters.map((f) => f.args)).toEqual(['eq(n,0)', undefined]);
    expect(parseFilterGraph('select=eq(n\\,0);null').filters[0]!.args).toBe('eq(n,0)');
    // Inside quotes a backslash is kept for the next level.
    expect(parseFilterGraph("select='eq(n\\,0)'").filters[0]!.args).toBe('eq(n\\,0)');
    expect(parseFilterGraph("a='x[y]z'").filters[0]!.args).toBe('x[y]z');
  });

  test('trailing whitespace is dropped unless quoted or escaped', () => {
    expect(parseFilterGraph('a=x  ').filters[0]!.args).toBe('x');
    expect(parseFilterGraph('a=x\\ ').filters[0]!.args).toBe('x ');
    expect(parseFilterGraph("a='x '").filters[0]!.args).toBe('x ');
  });

  test('an escaped separator does not split filters', () => {
    expect(names('scale=1:1\\,movie=x')).toEqual(['scale']);
    expect(parseFilterGraph('scale=1:1\\,movie=x').filters[0]!.args).toBe('1:1,movie=x');
  });

  test.each([
    ['', 'missing filter name'],
    ['scale=1:1,', 'missing filter name'],
    ['scale=1:1]', 'unexpected'],
    ['[in scale', 'unclosed'],
    ['[]scale', 'empty label'],
    ['scale[out', 'unclosed'],
    [';hflip', 'missing filter name'],
  ])('syntax error: %j', (g, msg) => {
    expect(() => parseFilterGraph(g)).toThrow(FilterGraphSyntaxError);
    expect(() => parseFilterGraph(g)).toThrow(msg);
  });
});

describe('parseFilterArgs', () => {
  test('bare values, then named values', () => {
    expect(parseFilterArgs('320:-2')).toEqual({ positional: ['320', '-2'], named: [] });
    expect(parseFilterArgs('w=320:h=240')).toEqual({
      positional: [],
      named: [
        ['w', '320'],
        ['h', '240'],
      ],
    });
    expect(parseFilterArgs('320:h=240:flags=lanczos')).toEqual({
      positional: ['320'],
      named: [
        ['h', '240'],
        ['flags', 'lanczos'],
      ],
    });
  });

  test('a bare value after a named one is an error, as in ffmpeg', () => {
    expect(() => parseFilterArgs('w=320:240')).toThrow(FilterGraphSyntaxError);
  });

  test('second-level escaping: \\: and quotes', () => {
    expect(parseFilterArgs('text=a\\:b').named).toEqual([['text', 'a:b']]);
    expect(parseFilterArgs("text='a:b'").named).toEqual([['text', 'a:b']]);
    expect(parseFilterArgs('eq(n\\,0)').positional).toEqual(['eq(n,0)']);
  });

  test('a quoted key is not a key: the whole item is a bare value', () => {
    expect(parseFilterArgs("'file'=x")).toEqual({ positional: ['file=x'], named: [] });
  });

  test('keys may contain / and . (ffmpeg 7 reads /key=path as a file)', () => {
    expect(parseFilterArgs('/text=/etc/passwd').named).toEqual([['/text', '/etc/passwd']]);
  });

  test('empty items and trailing separators', () => {
    expect(parseFilterArgs('')).toEqual({ positional: [], named: [] });
    expect(parseFilterArgs('320:')).toEqual({ positional: ['320'], named: [] });
    expect(parseFilterArgs('320::240')).toEqual({ positional: ['320', '', '240'], named: [] });
  });
});

describe('canonical serialization', () => {
  const tricky = ['a:b', "it's", 'x,y;z[w]', ' lead', 'trail ', 'back\\slash', "q'u:o,t;e[s] \\"];

  test.each(tricky)('value %j survives both unescaping levels', (value) => {
    const text = serializeFilterGraph([
      {
        inputs: ['0:v'],
        name: 'drawbox',
        options: [
          ['color', value],
          ['t', '2'],
        ],
        outputs: ['o'],
        separator: '',
      },
    ]);
    const [f] = parseFilterGraph(text).filters;
    expect(f!.name).toBe('drawbox');
    expect(f!.inputs).toEqual(['0:v']);
    expect(f!.outputs).toEqual(['o']);
    expect(parseFilterArgs(f!.args!).named).toEqual([
      ['color', value],
      ['t', '2'],
    ]);
  });

  test('escaping functions', () => {
    expect(escapeOptionValue('a:b')).toBe('a\\:b');
    expect(escapeGraphArgs('x=eq(n,0)')).toBe('x=eq(n\\,0)');
    expect(escapeGraphArgs(`w=${escapeOptionValue("it's")}`)).toBe("w=it\\\\\\'s");
  });

  test('structure (chains, instance ids) is kept', () => {
    const text = serializeFilterGraph([
      { inputs: [], name: 'split', options: [['outputs', '2']], outputs: ['a', 'b'], separator: ';' },
      {
        inputs: ['a'],
        name: 'scale',
        instance: 'small',
        options: [
          ['w', '320'],
          ['h', '-2'],
        ],
        outputs: [],
        separator: ',',
      },
      { inputs: [], name: 'hflip', options: [], outputs: [], separator: '' },
    ]);
    expect(text).toBe('split=outputs=2[a][b];[a]scale@small=w=320:h=-2,hflip');
  });
});

describe('dimensionProblem', () => {
  test.each([
    '320',
    '-2',
    '-1',
    '8192',
    'iw',
    'iw/2',
    'iw*2',
    'ih*16/9',
    'min(1280,iw)',
    'trunc(iw/2)*2',
    'if(gt(iw,ih),1280,-2)',
    'iw*sar',
    '(ow-iw)/2',
  ])('accepts %j', (v) => expect(dimensionProblem(v)).toBeNull());
  test.each([
    ['100000', 'exceeds 8192'],
    ['8193', 'exceeds 8192'],
    ['1e5', 'exceeds 8192'],
    ['10k', 'suffix'],
    ['iw*100', 'can exceed 16384'],
    ['iw*iw', 'can exceed'],
    ['8192*8192', 'exceeds 8192'],
    ['iw/ih*100', 'can exceed'],
    ['pow(iw,2)', "function 'pow'"],
    ['n*10', "name 'n'"],
    ['iw;ih', 'unexpected'],
    ['iw^3', 'can exceed'],
  ])('refuses %j', (v, why) => expect(dimensionProblem(v)).toContain(why));
});
