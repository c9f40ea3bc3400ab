// Generated inputs (-f lavfi) and side files named only in a filter, through the API: their recipes
// run end to end (outputs checked with ffprobe), and the hostile variants are refused with the
// sentence that names the fix, before anything runs, and nothing is charged.
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestStack, testAdapters, type TestStack } from '@media/stack/testing';
import { caller } from '../helpers.js';
import { checkOutputs } from './expect.js';
import { makeFixtures } from './fixtures.js';
import { RECIPES, type Recipe } from './recipes.js';

const MINE = [
  'silent-audio-track',
  'black-video-from-color',
  'audio-on-black-background',
  'lut3d-cube-named-in-filter',
  'burn-subtitles-named-in-filter',
];
const NEEDED = ['clip.mp4', 'vertical.mp4', 'audio.m4a', 'subs.srt', 'grade.cube', 'font.ttf'];

let stack: TestStack;
let api: ReturnType<typeof caller>;
let other: ReturnType<typeof caller>;
let work: string;
let dirId: string;
let otherDir: string;

const suite = testAdapters() === 'embedded' ? describe : describe.skip;

async function upload(as: ReturnType<typeof caller>, name: string, bytes: Buffer, dir?: string): Promise<string> {
  const { body, status } = await as('POST', '/file', dir ? { file_name: name, dir_id: dir } : { file_name: name });
  expect(status).toBe(200);
  const put = await fetch(body.upload.url, { method: 'PUT', headers: body.upload.headers, body: bytes });
  expect(put.status).toBe(200);
  return body.file.dir_id;
}

/** '{dir}' stands for the fixtures' directory, '{other}' for another account's. */
const withDirs = (text: string) => text.replaceAll('{dir}', dirId).replaceAll('{other}', otherDir);
const withDir = (task: unknown): unknown => JSON.parse(withDirs(JSON.stringify(task)));

suite('generated inputs and side files named in filters, through POST /ffmpeg/process', () => {
  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), 'recipes-generated-'));
    await makeFixtures(join(work, 'fixtures'));
    stack = await startTestStack({ WORKER_CONCURRENCY: '2' });
    api = caller(stack, (await stack.newAccount()).authorization);
    other = caller(stack, (await stack.newAccount()).authorization);
    const [first, ...rest] = NEEDED;
    dirId = await upload(api, first!, await readFile(join(work, 'fixtures', first!)));
    for (const name of rest) await upload(api, name, await readFile(join(work, 'fixtures', name)), dirId);
    // Another account's directory holding a subtitle file of the same name.
    otherDir = await upload(other, 'x.srt', await readFile(join(work, 'fixtures', 'subs.srt')));
  }, 120_000);

  afterAll(async () => {
    await stack?.close();
    if (work) await rm(work, { recursive: true, force: true });
  });

  const task = (inputs: unknown[], options: string[], file = 'out.mp4') => ({ task: withDir({ inputs, outputs: [{ file, options }] }) });
  const clip = { file_path: '{dir}/clip.mp4' };
  const lavfi = (graph: string, ...options: string[]) => ({ file_path: graph, options: ['-f', 'lavfi', ...options] });

  test.each([
    [
      'movie reads a file',
      () => task([lavfi('movie=/etc/passwd')], []),
      400,
      "Filter 'movie' is not allowed: it reads files the service did not stage",
    ],
    [
      'amovie reads a file',
      () => task([lavfi('amovie=in.wav')], []),
      400,
      "Filter 'amovie' is not allowed: it reads files the service did not stage",
    ],
    [
      'a file-reading filter',
      () => task([lavfi('testsrc2=d=1,lut3d=grade.cube')], []),
      400,
      'names a file; it can only be used in a filter of an output or of task.filter_complex',
    ],
    ['a network filter', () => task([lavfi('sine=d=1,azmq')], []), 400, "Filter 'azmq' is not allowed"],
    [
      'a graph read from a file',
      () => task([lavfi('sine=d=1', '-graph_file', 'g.txt')], []),
      400,
      "Option '-graph_file' (lavfi) is not allowed: it reads files the service did not stage",
    ],
    [
      'an unbounded source',
      () => task([lavfi('testsrc2=s=320x240')], []),
      400,
      "Output 'out.mp4' would never end: input 0 is generated without end (filter 'testsrc2' has no duration (d=)). Bound it: give the source a duration (d=<seconds> or duration=<seconds>), add -t <seconds>",
    ],
    [
      'a bad file_path points to generated inputs',
      () => task([{ file_path: 'color=black' }], []),
      400,
      'Invalid file_path format. Expected <dir_id>/<file_name>; to generate an input, give -f lavfi',
    ],
    [
      'lut3d=../x.cube',
      () => task([clip], ['-vf', 'lut3d=../x.cube']),
      400,
      "Option 'file' of filter 'lut3d' names '../x.cube', which is not an input of the task but a path: name a file of the directory of the task's inputs by its file name alone",
    ],
    [
      'lut3d=/etc/x.cube',
      () => task([clip], ['-vf', 'lut3d=/etc/x.cube']),
      400,
      "names '/etc/x.cube', which is not an input of the task but a path",
    ],
    [
      "another account's subtitles",
      () => task([clip], ['-vf', 'subtitles={other}/x.srt']),
      400,
      "names '{other}/x.srt', which is not an input of the task but a path",
    ],
    [
      'a name in no input directory',
      () => task([clip], ['-vf', 'lut3d=missing.cube']),
      404,
      "File 'missing.cube', named in a filter of the task, is not in directory {dir} (the directory of the task's inputs): upload it there, or add it to task.inputs",
    ],
    [
      "a name only another account's directory holds",
      () => task([clip], ['-vf', 'subtitles=x.srt']),
      404,
      "File 'x.srt', named in a filter of the task, is not in directory {dir}",
    ],
  ])('%s: refused with its sentence', async (_name, body, status, sentence) => {
    const res = await api('POST', '/ffmpeg/process', body());
    expect({ status: res.status, error: res.body.error }).toEqual({ status, error: expect.stringContaining(withDirs(sentence)) });
  });

  test('nothing refused was charged', async () => {
    expect((await api('GET', '/account/usage?format=json')).body.rows).toEqual([]);
  });

  async function run(recipe: Recipe): Promise<string[]> {
    const res = await api('POST', '/ffmpeg/process', { task: withDir(recipe.task) });
    if (res.status !== 200) return [`answered ${res.status}: ${res.body?.error}`];
    const out = join(work, recipe.id);
    await mkdir(out, { recursive: true });
    const files: Array<{ fileName: string; path: string }> = [];
    for (const item of res.body.result as Array<{ file_name: string; download_url: string }>) {
      const path = join(out, item.file_name);
      await writeFile(path, Buffer.from(await (await fetch(item.download_url)).arrayBuffer()));
      files.push({ fileName: item.file_name, path });
    }
    return checkOutputs(recipe, files);
  }

  test.each(MINE)(
    'recipe %s runs and gives what plain ffmpeg gives',
    async (id) => {
      const recipe = RECIPES.find((r) => r.id === id)!;
      expect(await run(recipe)).toEqual([]);
    },
    60_000,
  );

  test('the recipes that ran were charged', async () => {
    expect((await api('GET', '/account/usage?format=json')).body.rows).toHaveLength(MINE.length);
  });

  test('an async job with both: a LUT named in the filter and a generated audio track', async () => {
    const submitted = await api('POST', '/ffmpeg/process/async', {
      task: withDir({
        inputs: [clip, lavfi('anullsrc=r=48000:cl=stereo')],
        outputs: [
          { file: 'graded-silent.mp4', options: ['-vf', 'lut3d=grade.cube', '-preset', 'ultrafast', '-shortest'], maps: ['0:v', '1:a'] },
        ],
      }),
    });
    expect(submitted.status).toBe(202);
    const id = submitted.body.job_id as string;
    const deadline = Date.now() + 60_000;
    let job = (await api('GET', `/job/${id}`)).body;
    while (job.status !== 'completed' && job.status !== 'failed' && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
      job = (await api('GET', `/job/${id}`)).body;
    }
    expect(job).toMatchObject({ status: 'completed', result: [{ file_name: 'graded-silent.mp4' }] });
    const path = join(work, 'graded-silent.mp4');
    await writeFile(path, Buffer.from(await (await fetch(job.result[0].download_url)).arrayBuffer()));
    const recipe = {
      expect: [
        {
          file: 'graded-silent.mp4',
          streams: [
            { type: 'video', codec: 'h264' },
            { type: 'audio', codec: 'aac' },
          ],
          duration: [3.9, 4.2],
        },
      ],
    };
    expect(await checkOutputs(recipe as unknown as Recipe, [{ fileName: 'graded-silent.mp4', path }])).toEqual([]);
    // input_count counts the task's inputs as sent, not the LUT the filter named.
    const listed = (await api('GET', '/jobs')).body.jobs.find((j: { id: string }) => j.id === id);
    expect(listed).toMatchObject({ input_count: 2, output_count: 1 });
  }, 90_000);
});
