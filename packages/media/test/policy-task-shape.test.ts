// Shape of the POST /ffmpeg/process(/async) body: the spec's exact messages, and clear sentences
// naming the field for everything else. The gateway reads the JSON (readTaskRequest); Jobs plans
// it (planTask): a user sees the two as one check, so the tests drive both, as plan() does.
import {
  checkWebhookUrlForm,
  countNumberedFiles,
  expandNumberedPattern,
  isNumberedPattern,
  isValidFileName,
  numberedPatternRegex,
  parseFilePath,
  parseNumberedPattern,
  pathOrUrlProblem,
  readTaskRequest,
} from '../src/policy/index.js';
import { body, DIR, plan, refusal, single } from './policy-fixtures.js';
import { taskJson } from '@media/platform';
import { create } from '@bufbuild/protobuf';
import { TaskInputSchema, TaskOutputSchema } from '@media/proto/media/jobs/v1/jobs_pb.js';

const SPEC = {
  taskRequired: 'Task object is required in request body',
  inputsNotArray: 'Invalid task format: inputs must be a non-empty array',
  invalidFilePath: 'Invalid file_path format. Expected <dir_id>/<file_name>',
  sameDirectory: 'All input files must be from the same directory',
};

const refusedShape = (b: unknown, opts?: { allowWebhook?: boolean }) => {
  const err = refusal(() => {
    const { webhookUrl } = readTaskRequest(b, opts);
    if (webhookUrl !== undefined) checkWebhookUrlForm(webhookUrl);
    return plan(b);
  });
  expect(err.status).toBe(400);
  return err.message;
};

describe('spec messages', () => {
  test.each([
    ['no task', {}],
    ['task null', { task: null }],
    ['task a string', { task: 'x' }],
    ['task an array', { task: [] }],
    ['body an array', [{ task: {} }]],
    ['body a string', 'task'],
  ])('%s -> task required', (_t, b) => expect(refusedShape(b)).toBe(SPEC.taskRequired));

  test.each([
    ['inputs missing', { task: { outputs: [{ file: 'o.mp4', options: [] }] } }],
    ['inputs empty', { task: { inputs: [], outputs: [] } }],
    ['inputs an object', { task: { inputs: { file_path: `${DIR}/a.mp4` }, outputs: [] } }],
    ['inputs a string', { task: { inputs: `${DIR}/a.mp4` } }],
  ])('%s -> inputs must be a non-empty array', (_t, b) => expect(refusedShape(b)).toBe(SPEC.inputsNotArray));

  test.each([
    ['no slash', 'in.mp4'],
    ['empty dir id', '/in.mp4'],
    ['empty file name', `${DIR}/`],
    ['nested path', `${DIR}/sub/in.mp4`],
    ['dot dot', `${DIR}/..`],
    ['dot', `${DIR}/.`],
    ['dir id too long', `${'d'.repeat(65)}/in.mp4`],
    ['dir id with a dot', 'dir.x/in.mp4'],
    ['backslash', `${DIR}/a\\b.mp4`],
    ['control character', `${DIR}/a\nb.mp4`],
    ['file name of 256 characters', `${DIR}/${'n'.repeat(256)}`],
    ['not a string', 42],
    ['missing', undefined],
  ])('file_path %s -> invalid file_path format', (_t, fp) => {
    // The spec's sentence, then (for a string) how to generate an input instead.
    expect(refusedShape({ task: { inputs: [{ file_path: fp }], outputs: [{ file: 'o.mp4', options: [] }] } })).toMatch(
      new RegExp(`^${SPEC.invalidFilePath.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}($|; to generate an input, give -f lavfi)`),
    );
  });

  test('two directories', () => {
    expect(refusedShape(single([], 'o.mp4', [`${DIR}/a.mp4`, 'dir_other/b.mp4']))).toBe(SPEC.sameDirectory);
  });

  test('URL inputs may be mixed with uploaded inputs of one directory', () => {
    const t = plan(single([], 'o.mp4', [`${DIR}/a.mp4`, 'https://cdn.example.com/b.mp4', `${DIR}/c.mp4`]));
    expect(t.inputs.map((i) => i.source.kind)).toEqual(['uploaded', 'url', 'uploaded']);
  });

  test('output named like an input', () => {
    expect(refusedShape(single([], 'in.mp4'))).toBe("Output filename 'in.mp4' conflicts with an existing input file");
  });

  test('numbered output that would produce an input name', () => {
    expect(refusedShape(single(['-frames:v', '5'], 'frame_%03d.png', [`${DIR}/frame_001.png`]))).toBe(
      "Output filename 'frame_%03d.png' conflicts with an existing input file",
    );
  });

  test('HLS segments that would take an input name', () => {
    expect(refusedShape(single(['-f', 'hls'], 'seg.m3u8', [`${DIR}/seg0.ts`]))).toBe(
      "Output filename 'seg0.ts' conflicts with an existing input file",
    );
  });
});

describe('other shape problems name the field', () => {
  test.each([
    ['unknown body field', { ...single([]), extra: 1 }, "Unknown field 'extra' in the request body"],
    [
      'webhook_url on the sync endpoint',
      { ...single([]), webhook_url: 'https://h.example.com' },
      'only accepted by POST /ffmpeg/process/async',
    ],
    ['unknown task field', { task: { ...single([]).task, priority: 1 } }, "Unknown field 'priority' in task"],
    [
      'unknown input field',
      { task: { inputs: [{ file_path: `${DIR}/a.mp4`, name: 'x' }], outputs: [{ file: 'o.mp4' }] } },
      "Unknown field 'name' in task.inputs[0]",
    ],
    [
      'input options not strings',
      { task: { inputs: [{ file_path: `${DIR}/a.mp4`, options: [1] }], outputs: [{ file: 'o.mp4' }] } },
      'task.inputs[0].options must be an array of strings',
    ],
    ['maps not strings', body([{ file: 'o.mp4', maps: [0 as never] }]), 'task.outputs[0].maps must be an array of strings'],
    ['filter_complex not a string', { task: { ...single([]).task, filter_complex: ['x'] } }, 'task.filter_complex must be a string'],
    ['output_dir_id not a string', { task: { ...single([]).task, output_dir_id: 1 } }, 'task.output_dir_id must be a string'],
    ['input not an object', { task: { inputs: [`${DIR}/a.mp4`], outputs: [] } }, 'task.inputs[0] must be an object with file_path'],
    [
      '__proto__ field',
      JSON.parse(`{"task":{"inputs":[{"file_path":"${DIR}/a.mp4"}],"outputs":[{"file":"o.mp4"}]},"__proto__":{"x":1}}`),
      "Unknown field '__proto__'",
    ],
    ['outputs missing', { task: { inputs: [{ file_path: `${DIR}/a.mp4` }] } }, 'task.outputs must be an array of 1 to 50 outputs'],
    ['outputs empty', body([]), 'task.outputs must be an array of 1 to 50 outputs (got 0)'],
    [
      'output not an object',
      { task: { inputs: [{ file_path: `${DIR}/a.mp4` }], outputs: ['o.mp4'] } },
      'task.outputs[0] must be an object with file and options',
    ],
    ['unknown output field', body([{ file: 'o.mp4', options: [], format: 'mp4' } as never]), "Unknown field 'format' in task.outputs[0]"],
    ['output file missing', body([{ options: [] } as never]), 'task.outputs[0].file must be a string'],
    ['output file with a slash', single([], 'a/b.mp4'), "task.outputs[0].file 'a/b.mp4' must not contain a slash or backslash"],
    ['output file ..', single([], '..'), 'must not be "." or ".."'],
    ['output file empty', single([], ''), 'must be 1 to 255 characters'],
    ['output file too long', single([], `${'x'.repeat(252)}.mp4`), 'must be 1 to 255 characters'],
    ['output file with a control character', single([], 'a\tb.mp4'), 'must not contain control characters'],
    ['two %d in a name', single([], 'a_%d_%d.png'), 'has more than one number pattern'],
    ['%% without a number', single([], '100%%.png'), 'uses %% without a number pattern'],
    [
      'duplicate output names',
      body([
        { file: 'o.mp4', options: [] },
        { file: 'o.mp4', options: [] },
      ]),
      "task.outputs[1].file 'o.mp4' is used by another output",
    ],
    ['options not an array', body([{ file: 'o.mp4', options: '-c copy' as never }]), 'task.outputs[0].options must be an array of strings'],
    [
      'options with a number',
      body([{ file: 'o.mp4', options: ['-crf', 23 as never] }]),
      'task.outputs[0].options must be an array of strings',
    ],
    ['input URL with spaces', single([], 'o.mp4', ['https://a.example.com/a b.mp4']), 'must not contain spaces'],
  ])('%s', (_t, b, msg) => expect(refusedShape(b)).toContain(msg));

  test.each([
    ['not a string', 5, 'webhook_url must be a string'],
    ['over http', 'http://hooks.example.com/x', "webhook_url 'http://hooks.example.com/x' must be a public HTTPS URL"],
    ['with credentials', 'https://u:p@hooks.example.com/x', 'must not contain a user name or password'],
    ['not a URL', 'hooks', 'must be a public HTTPS URL'],
  ])('async webhook_url %s', (_t, url, msg) => {
    expect(refusedShape({ ...single([]), webhook_url: url }, { allowWebhook: true })).toContain(msg);
  });

  test('async accepts webhook_url', () => {
    expect(readTaskRequest({ ...single([]), webhook_url: 'https://hooks.example.com/x' }, { allowWebhook: true }).webhookUrl).toBe(
      'https://hooks.example.com/x',
    );
  });

  test('options and maps may be left out', () => {
    expect(readTaskRequest(body([{ file: 'o.webm' } as never])).task.outputs).toEqual([
      create(TaskOutputSchema, { file: 'o.webm', options: [], maps: [] }),
    ]);
    expect(readTaskRequest(body([{ file: 'o.webm' }])).task.inputs).toEqual([
      create(TaskInputSchema, { filePath: `${DIR}/in.mp4`, options: [] }),
    ]);
  });

  test('file names count characters, not bytes or UTF-16 units', () => {
    expect(isValidFileName(`${'é'.repeat(251)}.mp4`)).toBe(true);
    expect(isValidFileName(`${'é'.repeat(252)}.mp4`)).toBe(false);
    expect(isValidFileName(`${'😀'.repeat(251)}.mp4`)).toBe(true);
    expect(plan(single([], `${'😀'.repeat(251)}.mp4`)).outputs[0]!.fileName).toHaveLength(506);
  });

  test('exactly at the limits is accepted', () => {
    const inputs = Array.from({ length: 100 }, (_, i) => `${DIR}/i${i}.mp4`);
    const outputs = Array.from({ length: 50 }, (_, i) => ({ file: `o${i}.mp4`, options: [] }));
    expect(plan(body(outputs, inputs)).inputs).toHaveLength(100);
    // 400 entries: 200 repeatable options with their values.
    const options = Array.from({ length: 200 }, (_, i) => ['-metadata', `k${i}=v`]).flat();
    expect(plan(single(options)).outputs[0]!.args).toHaveLength(400);
    // Option entries up to 8,192 characters, metadata values included (the spec's limit).
    expect(plan(single(['-metadata', `title=${'a'.repeat(8186)}`])).outputs[0]!.args[1]).toHaveLength(8192);
    expect(refusedShape(single(['-metadata', `title=${'a'.repeat(8187)}`]))).toBe(
      'task.outputs[0].options[1] is 8193 characters long; an option may have at most 8192',
    );
    expect(plan(single(['-vf', `scale=320:-2${',null'.repeat(250)}`])).outputs[0]!.args[1]!.length).toBeLessThanOrEqual(32768);
  });
});

describe('parseFilePath', () => {
  test('uploaded and URL inputs', () => {
    expect(parseFilePath(`${DIR}/My clip (1).mp4`)).toEqual({
      kind: 'uploaded',
      dirId: DIR,
      fileName: 'My clip (1).mp4',
      filePath: `${DIR}/My clip (1).mp4`,
    });
    expect(parseFilePath('HTTPS://Example.com/a.mp4?x=1')).toEqual({ kind: 'url', url: 'https://example.com/a.mp4?x=1' });
  });
});

describe('numbered patterns', () => {
  test.each([
    ['thumb_%03d.png', { prefix: 'thumb_', width: 3, suffix: '.png' }],
    ['f%d.jpg', { prefix: 'f', width: 1, suffix: '.jpg' }],
    ['f%3d.jpg', { prefix: 'f', width: 3, suffix: '.jpg' }],
    ['100%%_%02d.png', { prefix: '100%_', width: 2, suffix: '.png' }],
    ['plain.png', null],
  ])('parse %s', (name, expected) => expect(parseNumberedPattern(name)).toEqual(expected));

  test('isNumberedPattern', () => {
    expect(isNumberedPattern('t_%03d.png')).toBe(true);
    expect(isNumberedPattern('t.png')).toBe(false);
    expect(isNumberedPattern('t_%s.png')).toBe(false);
    expect(isNumberedPattern('t_%d_%d.png')).toBe(false);
  });

  test('regex, expansion and counting match what the image muxer writes', () => {
    const re = numberedPatternRegex('thumb_%03d.png');
    expect(['thumb_001.png', 'thumb_999.png', 'thumb_1000.png'].every((n) => re.test(n))).toBe(true);
    expect(['thumb_01.png', 'thumb_001.jpg', 'xthumb_001.png', 'thumb_%03d.png'].some((n) => re.test(n))).toBe(false);
    expect(expandNumberedPattern('thumb_%03d.png', 7)).toBe('thumb_007.png');
    expect(expandNumberedPattern('100%%_%d.png', 12)).toBe('100%_12.png');
    expect(countNumberedFiles('t_%d.jpg', ['t_1.jpg', 't_2.jpg', 'in.mp4', 't_x.jpg'])).toBe(2);
  });

  test('a numbered pattern is only for image outputs, without -update', () => {
    const msg = (file: string, options: string[]) => refusedShape(single(options, file));
    expect(msg('clip_%d.mp4', ['-frames:v', '10'])).toContain('those are for image files');
    expect(msg('t_%d.png', ['-f', 'mp4', '-frames:v', '10'])).toContain('those are for image files');
    expect(msg('t_%d.png', ['-update', '1', '-frames:v', '10'])).toContain('cannot use -update 1');
    expect(plan(single(['-f', 'image2', '-frames:v', '3'], 't_%d.jpg')).outputs[0]!.maxFiles).toBe(3);
    expect(plan(single(['-vframes', '3'], 't_%d.jpg')).outputs[0]!.maxFiles).toBe(3);
    expect(plan(single(['-frames', '3'], 't_%d.jpg')).outputs[0]!.maxFiles).toBe(3);
    // -frames:a does not bound the images.
    expect(msg('t_%d.png', ['-frames:a', '10'])).toContain('its -frames must apply to video');
  });
});

describe('pathOrUrlProblem', () => {
  test.each([
    'My video',
    'AC/DC live',
    'iw/2',
    '.5',
    '0/0 0.5/0.58 1/1',
    'PTS-STARTPTS',
    'between(t,1,5)',
    'red@0.5',
    'Part 1: Intro',
    'stereo|c0=FL|c1=FR',
  ])('text %j passes', (v) => expect(pathOrUrlProblem(v)).toBeNull());
  test.each([
    ['/etc/passwd', 'a path'],
    ['~/x', 'a path'],
    ['./x', 'a path'],
    ['../x', 'a path'],
    ['.hidden', 'a path'],
    ['a/../b', 'a path'],
    ['C:\\x', 'a path'],
    ['C:/x', 'a path'],
    ['x\\y', 'backslash'],
    ['https://a', 'a URL'],
    ['FILE:x', "'file:'"],
    ['crypto+file:x', "'crypto+file:'"],
    ['subfile,,start,0,,:x', "'subfile,'"],
    ['see pipe:1 now', "'pipe:'"],
    ['Data: x', "'data:'"],
  ])('%j is refused', (v, why) => expect(pathOrUrlProblem(v)).toContain(why));
});

test("platform's taskJson writes a task back as the body readTaskRequest reads (the console shows it so)", () => {
  const body = {
    task: {
      inputs: [{ file_path: 'dir_a/in.mp4', options: ['-ss', '2'] }, { file_path: 'dir_a/logo.png' }],
      outputs: [
        { file: 'out.mp4', options: ['-c:v', 'libx264'], maps: ['[v]', '0:a'] },
        { file: 'thumb.jpg', options: ['-frames:v', '1'] },
      ],
      filter_complex: '[0:v][1:v]overlay[v]',
      output_dir_id: 'dir_b',
    },
  };
  const { task } = readTaskRequest(body);
  expect(taskJson(task)).toEqual(body.task);
  expect(readTaskRequest({ task: taskJson(task) }).task).toEqual(task);
});
