// A run's inputs staged once for every part of it a worker encodes, removed once no part uses them
// for a while, staged afresh after a failed staging, all removed on clear().
import type { Staged } from '../src/domain/stages/stage-inputs.js';
import { StagedRuns } from '../src/domain/split-parts/staged-runs.js';

const staging = (workDir: string): Staged => ({ workDir, resolved: [], staged: {} as Staged['staged'] });

function harness(keepMs: number) {
  const removed: string[] = [];
  let onRemove = () => {};
  const runs = new StagedRuns(async (s) => {
    removed.push(s.workDir);
    onRemove();
  }, keepMs);
  const nextRemoval = () => new Promise<void>((r) => (onRemove = r));
  return { runs, removed, nextRemoval };
}

test('two parts of one run share one staging; it is removed once neither uses it', async () => {
  const { runs, removed, nextRemoval } = harness(20);
  let stagings = 0;
  const stage = async () => staging(`/w/${++stagings}`);
  const a = await runs.use('r1', stage);
  const b = await runs.use('r1', stage);
  expect(stagings).toBe(1);
  expect(b.staged.workDir).toBe(a.staged.workDir);
  a.release();
  const removal = nextRemoval();
  b.release();
  await removal;
  expect(removed).toEqual(['/w/1']);
  // The run's next part after that stages again.
  const c = await runs.use('r1', stage);
  expect(c.staged.workDir).toBe('/w/2');
  c.release();
  await runs.clear();
  expect(removed).toEqual(['/w/1', '/w/2']);
});

test('a part that comes within the keep time reuses the staging', async () => {
  const { runs, removed } = harness(60_000);
  let stagings = 0;
  const stage = async () => staging(`/w/${++stagings}`);
  (await runs.use('r1', stage)).release();
  (await runs.use('r1', stage)).release();
  expect(stagings).toBe(1);
  expect(removed).toEqual([]);
  await runs.clear();
  expect(removed).toEqual(['/w/1']);
});

test('a failed staging is not kept; a staging in use is not removed by clear()', async () => {
  const { runs, removed } = harness(60_000);
  await expect(runs.use('r1', async () => Promise.reject(new Error('down')))).rejects.toThrow('down');
  const ok = await runs.use('r1', async () => staging('/w/ok'));
  await runs.clear();
  expect(removed).toEqual([]);
  ok.release();
  await runs.clear();
  expect(removed).toEqual(['/w/ok']);
});
