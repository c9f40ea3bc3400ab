// A job's time limit is one clock: a worker that runs the task again after an outage passes the
// first run's deadline, and a run that starts past it is timed out before ffmpeg is started.
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { JobKind } from '@media/proto/media/jobs/v1/jobs_pb.js';
import { execute, type ProcessDeps } from '../src/domain/process.js';
import type { TaskPlan } from '@media/media';

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'jobs-deadline-'));
});
afterAll(() => rm(root, { recursive: true, force: true }));

test('a run past the deadline it is given fails "Processing timed out" without starting ffmpeg, and removes its work directory', async () => {
  const workDir = await mkdtemp(join(root, 'job_x-'));
  // An hour's limit from now, but the first run's deadline has passed: nothing else is needed,
  // since nothing else may be reached (no storage, no ffmpeg).
  const deps = { timeoutMs: 3_600_000 } as ProcessDeps;
  const task = { inputs: [], outputs: [{ fileName: 'out.png', args: [] }] } as unknown as TaskPlan;
  const staged = { workDir, resolved: [], staged: { open: [], bytes: 0 } };
  await expect(
    execute(deps, { accountId: 'acc_a', keyId: 'key_a' }, 'job_x', task, [], { kind: JobKind.ASYNC, staged, deadline: Date.now() - 1 }),
  ).rejects.toMatchObject({ message: 'Processing timed out' });
  await expect(stat(workDir)).rejects.toMatchObject({ code: 'ENOENT' });
});
