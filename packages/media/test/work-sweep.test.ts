// Work directories left by a process that died are removed once older than any run can last;
// younger ones, and anything a run did not make, are kept.
import { mkdir, mkdtemp, readdir, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { startWorkSweeper, sweepWorkDirs } from '../src/staging/work-sweep.js';

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'work-sweep-'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

const HOUR = 3600_000;
async function aged(path: string, ageMs: number): Promise<void> {
  const t = new Date(Date.now() - ageMs);
  await utimes(path, t, t);
}

/** A work directory as a run makes it (mkdtemp under the root, in/ and out/ inside). */
async function workDir(jobId: string, ageMs: number): Promise<string> {
  const dir = await mkdtemp(join(root, `${jobId}-`));
  await mkdir(join(dir, 'in'));
  await mkdir(join(dir, 'out'));
  await writeFile(join(dir, 'in', '0'), 'input');
  await aged(dir, ageMs);
  return basename(dir);
}

test('removes work directories older than the limit, with their contents, and keeps the rest', async () => {
  const old = await workDir('job_aaaaaaaaaaaaaaaaaaaa', 3 * HOUR);
  const young = await workDir('job_bbbbbbbbbbbbbbbbbbbb', 10 * 60_000);
  // Not a run's: another program's directory, a file with a run's name.
  await mkdir(join(root, 'backups'));
  await aged(join(root, 'backups'), 5 * HOUR);
  await writeFile(join(root, 'job_cccccccccccccccccccc-abcdef'), 'x');
  await aged(join(root, 'job_cccccccccccccccccccc-abcdef'), 5 * HOUR);

  expect(await sweepWorkDirs(root, 2 * HOUR)).toEqual([old]);
  expect((await readdir(root)).sort()).toEqual(['backups', 'job_cccccccccccccccccccc-abcdef', young].sort());
});

test('a missing work root is nothing to sweep', async () => {
  expect(await sweepWorkDirs(join(root, 'never-made'), HOUR)).toEqual([]);
});

test('the sweeper sweeps at start and says what it removed', async () => {
  await workDir('job_dddddddddddddddddddd', 3 * HOUR);
  const warnings: { obj: object; msg: string }[] = [];
  const sweeper = startWorkSweeper(root, 2 * HOUR, 60_000, { warn: (obj, msg) => warnings.push({ obj, msg }) });
  try {
    for (let i = 0; i < 100 && warnings.length === 0; i++) await new Promise((r) => setTimeout(r, 20));
    expect(await readdir(root)).toEqual([]);
    expect(warnings).toEqual([
      { obj: { workRoot: root, removed: 1 }, msg: 'removed work directories left by a run that never ended (a process died)' },
    ]);
  } finally {
    sweeper.stop();
  }
});
