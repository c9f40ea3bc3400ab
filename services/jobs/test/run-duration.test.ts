// The expected duration a run hands to ffmpeg's progress parser (issue 43): the plan's (its trims),
// not the file's. Real files staged and probed as a job's inputs, then runOptions as Jobs calls it.
import { execFile } from 'node:child_process';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parseConcatList, planTask, readTaskRequest, stagePlan, type ResolvedPlanInput, type StagingDeps } from '@media/media';
import { createLogger } from '@media/platform';
import { Slots } from '../src/domain/slots.js';
import { runOptions, type RunDeps } from '../src/domain/stages/run.js';

const DIR = 'dir_abcdefghij0123456789';
const logger = createLogger('jobs-test', 'silent');
const ffmpeg = (args: string[]) => promisify(execFile)('ffmpeg', ['-v', 'error', ...args]);
let root: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'run-duration-'));
  await ffmpeg([
    ...['-f', 'lavfi', '-i', 'testsrc=duration=6:size=160x120:rate=25'],
    ...['-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p', join(root, 'six.mp4')],
  ]);
  await ffmpeg(['-f', 'lavfi', '-i', 'testsrc=size=64x48:rate=25', '-frames:v', '10', join(root, 'img_%03d.png')]);
}, 30_000);
afterAll(() => rm(root, { recursive: true, force: true }));

/** A file of the fixtures' directory as resolved for staging: hard-linked and probed, no Storage call. */
const local = async (name: string) => ({
  input: { kind: 'uploaded' as const, dirId: DIR, fileName: name },
  name,
  size: (await stat(join(root, name))).size,
  localPath: join(root, name),
});

type Extra = Pick<ResolvedPlanInput, 'sequence' | 'concat'>;

/** runOptions' durationSec for one output over one input, staged for real. */
async function expectedDuration(
  input: { file: string; options: string[]; files?: string[]; extra?: Extra },
  outputOptions: string[] = [],
): Promise<number | undefined> {
  const body = {
    task: {
      inputs: [{ file_path: `${DIR}/${input.file}`, options: input.options }],
      outputs: [{ file: 'out.mp4', options: outputOptions }],
    },
  };
  const task = planTask(readTaskRequest(body, { allowWebhook: false }).task);
  const workDir = await mkdtemp(join(root, 'work-'));
  const files = await Promise.all((input.files ?? [input.file]).map(local));
  const resolved: ResolvedPlanInput[] = [{ planned: task.inputs[0]!, files, ...input.extra }];
  const staged = await stagePlan({ timeoutMs: 10_000 } as unknown as StagingDeps, 'acct', resolved, { workDir, logger });
  const deps = { logger, slots: new Slots(1) } as unknown as RunDeps;
  const options = await runOptions(deps, {
    accountId: 'acct',
    jobId: 'job',
    task,
    staged: { workDir, resolved, staged },
    timeoutMs: 60_000,
  });
  return options.durationSec;
}
const six = (options: string[]) => ({ file: 'six.mp4', options });

test('input -t 2 on a 6 s file: the progress parser expects 2 s', async () => {
  expect(await expectedDuration(six(['-t', '2']))).toBeCloseTo(2, 3);
});

test('untrimmed: the file, as probed; -ss 1 on the output: the rest of it', async () => {
  expect(await expectedDuration(six([]))).toBeCloseTo(6, 1);
  expect(await expectedDuration(six([]), ['-ss', '1'])).toBeCloseTo(5, 1);
});

test('an image sequence: its files at -framerate', async () => {
  const names = Array.from({ length: 10 }, (_, i) => `img_${String(i + 1).padStart(3, '0')}.png`);
  const sequence = {
    file: 'img_%03d.png',
    options: ['-framerate', '5'],
    files: names,
    extra: { sequence: { first: 1, pattern: 'img_%03d.png' } },
  };
  expect(await expectedDuration(sequence)).toBeCloseTo(2, 6);
});

test('a concat list: its entries one after another, each cut by its inpoint', async () => {
  const list = parseConcatList("file 'six.mp4'\nfile 'six.mp4'\ninpoint 4\n", 'list');
  const concat = {
    file: 'list.txt',
    options: ['-f', 'concat'],
    files: ['six.mp4'],
    extra: { concat: { list, entryFile: [0, 0], listBytes: 40 } },
  };
  expect(await expectedDuration(concat)).toBeCloseTo(8, 1);
});
