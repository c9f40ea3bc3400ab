// The recipes run with plain ffmpeg, as their sources show them: proves each recipe's expectations
// are what ffmpeg itself gives, so the API run (recipes-api.test.ts) is compared with ffmpeg, not
// with what the service happens to do. Reports (-f null outputs) are the service's own: here only
// the run itself is checked.
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { testAdapters } from '@media/stack/testing';
import { checkOutputs } from './expect.js';
import { makeFixtures } from './fixtures.js';
import { RECIPES, type Recipe, type TaskOutput } from './recipes.js';

const execute = promisify(execFile);
let work: string;
let fixtures: string;

// The same run under either adapter set: once is enough.
const suite = testAdapters() === 'embedded' ? describe : describe.skip;

const isReport = (o: TaskOutput) => (o.options ?? []).join(' ').includes('-f null');

/** What the service sets for packagers' further files (plan/outputs.ts), so both runs name them alike. */
function packagerNames(o: TaskOutput): string[] {
  const opts = o.options ?? [];
  const stem = o.file.replace(/\.[^.]+$/, '');
  const format = opts[opts.indexOf('-f') + 1];
  if (format === 'dash')
    return [
      '-init_seg_name',
      `${stem}-init-stream$RepresentationID$.$ext$`,
      '-media_seg_name',
      `${stem}-chunk-stream$RepresentationID$-$Number%05d$.$ext$`,
    ];
  if (format === 'hls' && opts.includes('fmp4')) return ['-hls_fmp4_init_filename', `${stem}_init.mp4`];
  return [];
}

/** The recipe as an ffmpeg command line run in the fixtures' directory; side files are named, not opened as inputs. */
export function plainArgs(recipe: Recipe, out: string): string[] {
  const { task } = recipe;
  const texts = [task.filter_complex ?? '', ...task.outputs.flatMap((o) => o.options ?? [])].join('\n');
  const args = ['-nostdin', '-hide_banner', '-loglevel', 'error', '-y'];
  for (const i of task.inputs) {
    const name = i.file_path.replace('{dir}/', '');
    if (new RegExp(`(^|[=' \\n])${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}($|[:,' \\n])`).test(texts)) continue;
    args.push(...(i.options ?? []), '-i', name);
  }
  if (task.filter_complex) args.push('-filter_complex', task.filter_complex);
  for (const o of task.outputs) {
    for (const m of o.maps ?? []) args.push('-map', m);
    // The service writes a segment list next to the parts (plan/segments.ts).
    const options = (o.options ?? []).map((v, i, all) => (all[i - 1] === '-segment_list' ? join(out, v) : v));
    args.push(...options, ...packagerNames(o), join(out, o.file));
  }
  return args;
}

suite('the recipes with plain ffmpeg', () => {
  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), 'recipes-plain-'));
    fixtures = join(work, 'fixtures');
    await makeFixtures(fixtures);
  }, 120_000);

  afterAll(async () => {
    if (work) await rm(work, { recursive: true, force: true });
  });

  test('there are at least 60, each with a public source, in every category the suite promises', () => {
    expect(RECIPES.length).toBeGreaterThanOrEqual(60);
    expect(new Set(RECIPES.map((r) => r.id)).size).toBe(RECIPES.length);
    for (const r of RECIPES) expect(r.source).toMatch(/^https?:\/\/[^ ]+$/);
    expect([...new Set(RECIPES.map((r) => r.category))].sort()).toEqual([
      'analysis',
      'audio',
      'concat',
      'ffmpeg-api.com',
      'gif',
      'hls',
      'overlay',
      'segment',
      'sequence',
      'speed',
      'sprite',
      'still-image',
      'subtitles',
      'text',
      'thumbnail',
      'transcode',
      'trim',
    ]);
  });

  test('each gives what its expectations say', async () => {
    const failures: string[] = [];
    const queue = [...RECIPES];
    await Promise.all(
      [0, 1].map(async () => {
        for (let r = queue.shift(); r; r = queue.shift()) {
          const out = join(work, r.id);
          await mkdir(out, { recursive: true });
          try {
            await execute('ffmpeg', plainArgs(r, out), { cwd: fixtures, timeout: 120_000 });
          } catch (e) {
            failures.push(`${r.id}: ffmpeg failed: ${(e as { stderr?: string }).stderr?.trim() ?? (e as Error).message}`);
            continue;
          }
          const files = (await readdir(out)).map((fileName) => ({ fileName, path: join(out, fileName) }));
          const reports = new Set(r.task.outputs.filter(isReport).map((o) => o.file));
          const problems = await checkOutputs({ ...r, expect: r.expect.filter((e) => !reports.has(e.file)) }, files);
          if (problems.length > 0) failures.push(`${r.id}:\n  ${problems.join('\n  ')}`);
        }
      }),
    );
    expect(failures).toEqual([]);
  }, 600_000);
});
